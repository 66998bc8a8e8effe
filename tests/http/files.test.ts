import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveServer, liveServer } from '../helpers/live-server.ts';

const MAX = 64 * 1024;
let srv: LiveServer;
let key: Record<string, string>;
const png = new Uint8Array(300).map((_, i) => (i * 7) % 256);

const url = (path: string, base = srv.url) =>
  `${base}/api/v1/files/${path.split('/').map(encodeURIComponent).join('/')}`;
const get = (path: string, headers: Record<string, string> = {}, base?: string) =>
  fetch(url(path, base), { headers: { ...key, ...headers } });
const put = (path: string, body: BodyInit, headers: Record<string, string> = {}, base?: string) =>
  fetch(url(path, base), {
    method: 'PUT',
    headers: { ...key, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);

/** Every name under the vault (recursively), dot-files included. */
async function allNames(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const d of await readdir(join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    out.push(r);
    if (d.isDirectory()) out.push(...(await allNames(dir, r)));
  }
  return out;
}

beforeAll(async () => {
  srv = await liveServer({ MAX_FILE_BYTES: String(MAX) });
  key = { 'x-service-key': srv.firstKey };
  await mkdir(join(srv.vaultDir, 'assets'), { recursive: true });
  await writeFile(join(srv.vaultDir, 'assets', 'pic.png'), png);
  await writeFile(join(srv.vaultDir, 'assets', 'page.html'), '<script>alert(1)</script>');
  await writeFile(join(srv.vaultDir, 'assets', 'draw.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(srv.vaultDir, 'assets', 'blob.weird'), 'GIF89a pretending');
  await writeFile(join(srv.vaultDir, 'Home.md'), '# Home\n');
}, 30_000);
afterAll(async () => {
  await srv?.stop();
});

describe('GET and HEAD /api/v1/files/:path', () => {
  it('serves the bytes with type, length, validators and safe headers', async () => {
    const res = await get('assets/pic.png');
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(png);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe('300');
    expect(res.headers.get('etag')).toMatch(/^"f-/);
    expect(res.headers.get('cache-control')).toContain('private');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''pic.png");
  });

  it('never sniffs: an unknown extension is octet-stream', async () => {
    const res = await get('assets/blob.weird');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
  });

  it('serves HTML as a sandboxed download and SVG inline under a sandboxing CSP', async () => {
    const html = await get('assets/page.html');
    expect(html.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(html.headers.get('content-security-policy')).toMatch(/sandbox/);
    const svg = await get('assets/draw.svg');
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(svg.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(svg.headers.get('content-security-policy')).toMatch(/sandbox; default-src 'none'/);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await fetch(url('assets/pic.png'), { method: 'HEAD', headers: key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('300');
    expect(res.headers.get('content-type')).toBe('image/png');
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const etag = (await get('assets/pic.png')).headers.get('etag')!;
    const res = await get('assets/pic.png', { 'if-none-match': etag });
    expect(res.status).toBe(304);
    expect(res.headers.get('etag')).toBe(etag);
    expect((await get('assets/pic.png', { 'if-none-match': '"other"' })).status).toBe(200);
    const head = await fetch(url('assets/pic.png'), {
      method: 'HEAD',
      headers: { ...key, 'if-none-match': etag },
    });
    expect(head.status).toBe(304);
  });

  it('serves one range (206), suffix and open ranges, and 416 when unsatisfiable', async () => {
    const a = await get('assets/pic.png', { range: 'bytes=10-19' });
    expect(a.status).toBe(206);
    expect(a.headers.get('content-range')).toBe('bytes 10-19/300');
    expect(a.headers.get('content-length')).toBe('10');
    expect(new Uint8Array(await a.arrayBuffer())).toEqual(png.slice(10, 20));
    const b = await get('assets/pic.png', { range: 'bytes=-5' });
    expect(new Uint8Array(await b.arrayBuffer())).toEqual(png.slice(295));
    const c = await get('assets/pic.png', { range: 'bytes=290-' });
    expect(c.headers.get('content-range')).toBe('bytes 290-299/300');
    const d = await get('assets/pic.png', { range: 'bytes=300-400' });
    expect(d.status).toBe(416);
    expect(d.headers.get('content-range')).toBe('bytes */300');
    expect(((await d.json()) as any).error.code).toBe('RANGE_NOT_SATISFIABLE');
    // If-Range with an old validator: the whole file.
    const e = await get('assets/pic.png', { range: 'bytes=0-1', 'if-range': '"stale"' });
    expect(e.status).toBe(200);
  });

  it('answers 404 FILE_NOT_FOUND, and refuses notes, traversal, dot-folders and escaping symlinks', async () => {
    const missing = await get('assets/none.png');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('FILE_NOT_FOUND');
    const note = await get('Home.md');
    expect(note.status).toBe(400);
    expect(((await note.json()) as any).error.code).toBe('INVALID_PATH');
    for (const p of ['..%2F..%2Fetc%2Fpasswd', '.obsidian%2Fapp.json', 'a%5Cb.png']) {
      const res = await fetch(`${srv.url}/api/v1/files/${p}`, { headers: key });
      expect(res.status, p).toBe(400);
    }
    await symlink('/etc/hostname', join(srv.vaultDir, 'escape.txt'));
    const esc = await get('escape.txt');
    expect(esc.status).toBe(400);
    expect(((await esc.json()) as any).error.code).toBe('INVALID_PATH');
    const put1 = await put('escape.txt', 'x');
    expect(put1.status).toBe(400);
  });

  it('needs the key', async () => {
    const res = await fetch(url('assets/pic.png'));
    expect(res.status).toBe(401);
  });
});

describe('PUT, DELETE and move', () => {
  it('creates (201), replaces (200) with If-Match, refuses with If-None-Match: * and a stale If-Match', async () => {
    const created = await put('up/a.bin', new Uint8Array([1, 2, 3]));
    expect(created.status).toBe(201);
    const meta = ((await created.json()) as any).data;
    expect(meta).toMatchObject({ path: 'up/a.bin', size: 3, contentType: 'application/octet-stream' });
    expect(created.headers.get('etag')).toBe(meta.etag);
    const refused = await put('up/a.bin', 'zz', { 'if-none-match': '*' });
    expect(refused.status).toBe(412);
    const stale = await put('up/a.bin', 'zz', { 'if-match': '"f-0-0"' });
    expect(stale.status).toBe(412);
    const replaced = await put('up/a.bin', 'four', { 'if-match': meta.etag });
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as any).data.etag).not.toBe(meta.etag);
    expect(await readFile(join(srv.vaultDir, 'up/a.bin'), 'utf8')).toBe('four');
  });

  it('refuses .md paths on PUT', async () => {
    const res = await put('x.md', 'hello');
    expect(res.status).toBe(400);
  });

  it('413 above MAX_FILE_BYTES, declared or streamed, leaving nothing on disk', async () => {
    const before = await allNames(srv.vaultDir);
    const declared = await put('big/declared.bin', new Uint8Array(MAX + 1));
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
    // A chunked body (no Content-Length) is counted while it streams to disk.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (sent > MAX * 2) return ctl.close();
        sent += 8192;
        ctl.enqueue(new Uint8Array(8192));
      },
    });
    const streamed = await put('big/streamed.bin', stream);
    expect(streamed.status).toBe(413);
    const after = (await allNames(srv.vaultDir)).filter((n) => !n.startsWith('big'));
    expect(after.sort()).toEqual(before.sort());
    expect(
      (await allNames(srv.vaultDir)).some(
        (n) => n.includes('.quire-tmp-') || (n.endsWith('.bin') && n.startsWith('big/')),
      ),
    ).toBe(false);
  });

  it('accepts a file of exactly MAX_FILE_BYTES', async () => {
    const res = await put('big/exact.bin', new Uint8Array(MAX).fill(7));
    expect(res.status).toBe(201);
    expect((await get('big/exact.bin')).headers.get('content-length')).toBe(String(MAX));
  });

  it('moves (409 when taken) and deletes (If-Match honoured)', async () => {
    await put('m/one.png', png);
    await put('m/two.png', png);
    const taken = await fetch(`${url('m/one.png')}/move`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'm/two.png' }),
    });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as any).error.code).toBe('FILE_ALREADY_EXISTS');
    const moved = await fetch(`${url('m/one.png')}/move`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'm/sub/three.png' }),
    });
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as any).data.path).toBe('m/sub/three.png');
    expect((await get('m/one.png')).status).toBe(404);
    expect((await get('m/sub/three.png')).status).toBe(200);
    const bad = await fetch(`${url('m/sub/three.png')}/move`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: '{"path": 3',
    });
    expect(bad.status).toBe(400);
    const stale = await fetch(url('m/two.png'), {
      method: 'DELETE',
      headers: { ...key, 'if-match': '"f-1-1"' },
    });
    expect(stale.status).toBe(412);
    const del = await fetch(url('m/two.png'), { method: 'DELETE', headers: key });
    expect(del.status).toBe(200);
    expect(((await del.json()) as any).data).toEqual({ path: 'm/two.png', deleted: true });
    expect((await fetch(url('m/two.png'), { method: 'DELETE', headers: key })).status).toBe(404);
  });
});

describe('folder tree and attachment folder', () => {
  it('lists attachments as file children beside the notes', async () => {
    const res = await fetch(`${srv.url}/api/v1/folders/tree`, { headers: key });
    const tree = ((await res.json()) as any).data;
    const assets = tree.children.find((c: any) => c.path === 'assets');
    expect(assets.children).toContainEqual({
      name: 'pic.png',
      path: 'assets/pic.png',
      type: 'file',
      size: 300,
      contentType: 'image/png',
    });
    expect(tree.children).toContainEqual(expect.objectContaining({ type: 'note', path: 'Home.md' }));
    const sub = (
      (await (await fetch(`${srv.url}/api/v1/folders/tree/assets`, { headers: key })).json()) as any
    ).data;
    expect(sub.children.map((c: any) => c.path)).toContain('assets/draw.svg');
  });

  it('honours .obsidian/app.json attachmentFolderPath in each form', async () => {
    const at = async (note: string, name: string) => {
      const res = await fetch(
        `${srv.url}/api/v1/files/attachment-path?note=${encodeURIComponent(note)}&name=${encodeURIComponent(name)}`,
        { headers: key },
      );
      return ((await res.json()) as any).data;
    };
    expect(await at('notes/day.md', 'x.png')).toEqual({ folder: '', path: 'x.png' });
    await mkdir(join(srv.vaultDir, '.obsidian'), { recursive: true });
    const setting = (v: string) =>
      writeFile(join(srv.vaultDir, '.obsidian', 'app.json'), JSON.stringify({ attachmentFolderPath: v }));
    await setting('/');
    expect(await at('notes/day.md', 'x.png')).toEqual({ folder: '', path: 'x.png' });
    await setting('assets');
    expect(await at('notes/day.md', 'pic.png')).toEqual({ folder: 'assets', path: 'assets/pic 1.png' });
    await setting('./');
    expect(await at('notes/day.md', 'x.png')).toEqual({ folder: 'notes', path: 'notes/x.png' });
    await setting('./attachments');
    expect(await at('notes/day.md', 'x.png')).toEqual({
      folder: 'notes/attachments',
      path: 'notes/attachments/x.png',
    });
    const bad = await fetch(`${srv.url}/api/v1/files/attachment-path?note=x.md&name=a%2Fb.png`, {
      headers: key,
    });
    expect(bad.status).toBe(400);
  });
});

describe('through the relay at /r/<serverId>', () => {
  it('GET, HEAD, ranges, 304, PUT, move and DELETE work', async () => {
    const setup = await srv.setup();
    const base = `${srv.relayUrl}/r/${setup.serverId}`;
    const full = await get('assets/pic.png', {}, base);
    expect(full.status).toBe(200);
    expect(new Uint8Array(await full.arrayBuffer())).toEqual(png);
    expect(full.headers.get('content-type')).toBe('image/png');
    const etag = full.headers.get('etag')!;
    expect((await get('assets/pic.png', { 'if-none-match': etag }, base)).status).toBe(304);
    const part = await get('assets/pic.png', { range: 'bytes=0-3' }, base);
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 0-3/300');
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(png.slice(0, 4));
    expect((await get('assets/pic.png', { range: 'bytes=999-' }, base)).status).toBe(416);
    const head = await fetch(url('assets/pic.png', base), { method: 'HEAD', headers: key });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('image/png');
    expect(head.headers.get('etag')).toBe(etag);
    const up = await put('relay/up.png', png, {}, base);
    expect(up.status).toBe(201);
    const mv = await fetch(`${url('relay/up.png', base)}/move`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'relay/moved.png' }),
    });
    expect(mv.status).toBe(200);
    expect(await readFile(join(srv.vaultDir, 'relay/moved.png'))).toEqual(Buffer.from(png));
    expect((await fetch(url('relay/moved.png', base), { method: 'DELETE', headers: key })).status).toBe(200);
    const tooBig = await put('relay/big.bin', new Uint8Array(MAX + 10), {}, base);
    expect(tooBig.status).toBe(413);
  });

  it('a file larger than the relay body limit is refused whole but served by ranges', async () => {
    const setup = await srv.setup();
    const base = `${srv.relayUrl}/r/${setup.serverId}`;
    const big = new Uint8Array(10 * 1024 * 1024 + 1024).map((_, i) => i % 251);
    await writeFile(join(srv.vaultDir, 'huge.bin'), big);
    const whole = await get('huge.bin', {}, base);
    expect(whole.status).toBe(413);
    expect(((await whole.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
    const part = await get('huge.bin', { range: 'bytes=10485000-10485999' }, base);
    expect(part.status).toBe(206);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(big.slice(10485000, 10486000));
  });
});
