import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.ts';
import { runTs } from '../helpers/child.ts';
import { openaiAnswer, startFakeLlm } from '../helpers/fake-llm.ts';

const KEY = 'sk-deploy-secret-9876543210';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('npm start with AGENT_PROVIDER=openai', () => {
  it('chats through the configured provider and never logs the key', async () => {
    let n = 0;
    const fake = await startFakeLlm('openai', (req) => {
      if (req.method === 'GET') return { body: { object: 'list', data: [] } };
      n++;
      if (n === 1) return openaiAnswer({ calls: [{ name: 'search_notes', args: { query: 'hello' } }] });
      if (n === 2) return openaiAnswer({ text: 'Your note hello.md says hello.' });
      return { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } };
    });
    cleanups.push(fake.close);
    const tmp = await tempDir();
    cleanups.push(tmp.cleanup);
    const vault = join(tmp.dir, 'vault');
    await mkdir(vault, { recursive: true });
    await writeFile(join(vault, 'hello.md'), '# Hello\n\nhello world\n');
    const p = runTs('deploy/node/main.ts', {
      DATA_DIR: join(tmp.dir, 'data'),
      VAULT_DIR: vault,
      LOG_LEVEL: 'debug',
      SERVICE_AUTH_MODE: 'none',
      PAIRING_MODE: 'open-port',
      AGENT_PROVIDER: 'openai',
      AGENT_BASE_URL: fake.url,
      AGENT_MODEL: 'llama3.1',
      AGENT_API_KEY: KEY,
    });
    cleanups.push(p.kill);
    const { url } = await p.waitForLog((l) => l.msg === 'listening');
    await p.waitForLog((l) => l.msg === 'index ready');
    const chat = (message: string) =>
      fetch(`${url}/api/v1/agent/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });
    const ok = await chat('what does hello say?');
    const okBody = await ok.text();
    expect(ok.status).toBe(200);
    expect(JSON.parse(okBody).data).toMatchObject({
      reply: 'Your note hello.md says hello.',
      provider: 'openai',
      model: 'llama3.1',
      relatedNotes: [{ path: 'hello.md', title: 'Hello' }],
    });
    expect(fake.calls()[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const bad = await chat('again');
    const badBody = await bad.text();
    expect(bad.status).toBe(502);
    const status = await (await fetch(`${url}/api/v1/agent/status`)).text();
    expect(JSON.parse(status).data).toMatchObject({ provider: 'openai', model: 'llama3.1', reachable: true });
    await p.waitForLog((l) => l.msg === 'agent chat failed');
    for (const text of [okBody, badBody, status, p.out.stdout, p.out.stderr]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(3, 16));
    }
    expect(p.out.stdout).toContain('"msg":"agent"');
  });
});
