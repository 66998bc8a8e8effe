/**
 * The baseline of the attachments benchmark: a bare node:http file server over the same folder,
 * doing the least a correct one can: GET streams the file with its length (one range when asked),
 * PUT streams the body to a temporary file, flushes it and renames it. Reports `ready` with its URL over IPC.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { exitWithParent, serveCeiling } from './children.ts';

exitWithParent();
const dir = process.env.FILES_DIR!;
let n = 0;
const server = createServer(async (req, res) => {
  const path = join(dir, decodeURIComponent((req.url ?? '/').slice('/files/'.length)));
  try {
    if (req.method === 'PUT') {
      const tmp = `${path}.tmp-${n++}`;
      await pipeline(req, createWriteStream(tmp));
      // Flushed before the rename, as an atomic replace must be to survive a crash.
      const fh = await open(tmp, 'r+');
      await fh.sync();
      await fh.close();
      await rename(tmp, path);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"success":true}');
      return;
    }
    const st = await stat(path);
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (m) {
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), st.size - 1);
      res.writeHead(206, {
        'content-type': 'application/octet-stream',
        'content-length': end - start + 1,
        'content-range': `bytes ${start}-${end}/${st.size}`,
      });
      await pipeline(createReadStream(path, { start, end }), res);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': st.size });
    await pipeline(createReadStream(path), res);
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
});
serveCeiling(server);
