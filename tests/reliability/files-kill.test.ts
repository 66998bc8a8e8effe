import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { runTs } from '../helpers/child.ts';
import { until } from '../helpers/wait.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A note server child on `dir`; resolves with its URL and key once it is indexed. */
async function start(dir: string) {
  const p = runTs('deploy/node/main.ts', {
    DATA_DIR: join(dir, 'data'),
    VAULT_DIR: join(dir, 'vault'),
    PAIRING_MODE: 'open-port',
    LOG_LEVEL: 'info',
  });
  cleanups.push(() => p.kill());
  const { url } = await p.waitForLog((l) => l.msg === 'listening');
  await p.waitForLog((l) => l.msg === 'index ready');
  const setup = ((await (await fetch(`${url}/api/v1/system/setup`)).json()) as any).data;
  return { p, url: url as string, key: { 'x-service-key': setup.apiKey as string } };
}

it('a replace cut by SIGKILL mid-upload leaves the old file whole, and the leftover goes at the next start', async () => {
  const tmp = await tempDir();
  cleanups.push(tmp.cleanup);
  const first = await start(tmp.dir);
  const old = new Uint8Array(200_000).map((_, i) => i % 253);
  const put1 = await fetch(`${first.url}/api/v1/files/media/clip.bin`, {
    method: 'PUT',
    headers: first.key,
    body: old,
  });
  expect(put1.status).toBe(201);

  // A slow upload: chunks keep coming until the process is killed.
  let stop = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (stop) return ctl.close();
      await new Promise((r) => setTimeout(r, 20));
      ctl.enqueue(new Uint8Array(64 * 1024).fill(9));
    },
  });
  const upload = fetch(`${first.url}/api/v1/files/media/clip.bin`, {
    method: 'PUT',
    headers: first.key,
    body,
    duplex: 'half',
  } as RequestInit).catch((e: unknown) => e);
  const folder = join(tmp.dir, 'vault', 'media');
  // Wait until the new bytes are streaming into a temporary file beside the target.
  await until(
    'the condition',
    async () => (await readdir(folder)).some((n) => n.startsWith('.quire-tmp-')),
    10_000,
  );
  first.p.child.kill('SIGKILL');
  await first.p.exited;
  stop = true;
  await upload;

  expect(new Uint8Array(await readFile(join(folder, 'clip.bin')))).toEqual(old);
  const second = await start(tmp.dir);
  const res = await fetch(`${second.url}/api/v1/files/media/clip.bin`, { headers: second.key });
  expect(res.status).toBe(200);
  expect(new Uint8Array(await res.arrayBuffer())).toEqual(old);
  // The start sweeps what the cut write left behind; the tree never listed it.
  await until(
    'the condition',
    async () => !(await readdir(folder)).some((n) => n.startsWith('.quire-tmp-')),
    10_000,
  );
  const tree = (
    (await (await fetch(`${second.url}/api/v1/folders/tree/media`, { headers: second.key })).json()) as any
  ).data;
  expect(tree.children.map((c: any) => c.name)).toEqual(['clip.bin']);
}, 60_000);
