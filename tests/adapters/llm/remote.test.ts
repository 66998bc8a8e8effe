import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../../adapters/http/app.ts';
import { createAgent } from '../../../core/index.ts';
import { vaultNotes } from '../../helpers/agent-fixtures.ts';
import { requester } from '../../helpers/app.ts';
import { type Answer, type Calls, DIALECTS, type Recorded, startFakeLlm } from '../../helpers/fake-llm.ts';
import { capturingLogger } from '../../helpers/logger.ts';

const KEY = 'sk-test-0123456789abcdef';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

// What every provider does (errors, time-outs, reachability, the write policy) is in
// tests/contracts/llm-provider.contract.ts; these cases check each API's wire format.
describe.each(DIALECTS)('the $name provider against a real HTTP server', (d) => {
  /** An app whose agent talks to a fake server that plays `script` (by model-call number). */
  async function setup(
    script: (n: number, req: Recorded) => Answer | { calls?: Calls; text?: string },
    opts: { maxSteps?: number; timeoutMs?: number; enabled?: boolean; baseURL?: string } = {},
  ) {
    const { notes, clock } = await vaultNotes();
    const fake = await startFakeLlm(d.name, (req, all) => {
      if (req.method === 'GET') return { body: d.models };
      const a = script(all.filter((r) => r.method === 'POST').length, req);
      return a === 'hang' || 'body' in a ? a : d.answer(a);
    });
    cleanups.push(fake.close);
    const { logger, lines } = capturingLogger();
    const provider = d.make({ model: 'm1', baseURL: opts.baseURL ?? fake.url, apiKey: KEY });
    const agent = createAgent({ notes, clock, logger, provider, ...opts });
    const app = createApp({ notes, version: 't', clock, logger, agent });
    const send = requester(app);
    const chat = (body: unknown) => send('POST', '/api/v1/agent/chat', { body });
    return { notes, fake, lines, agent, chat, send };
  }

  it('searches, reads, then answers, and records both tools', async () => {
    const t = await setup((n) =>
      n === 1
        ? { calls: [{ name: 'search_notes', args: { query: 'compost' } }] }
        : n === 2
          ? { calls: [{ name: 'read_note', args: { path: 'garden/compost.md' } }] }
          : { text: 'Turn the heap every two weeks (garden/compost.md).' },
    );
    const res = await t.chat({ message: 'How often do I turn the compost?', channel: 'web' });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      reply: 'Turn the heap every two weeks (garden/compost.md).',
      actions: [
        { type: 'search_notes', summary: 'Searched "compost": 2 found.' },
        { type: 'read_note', summary: 'Read "Compost".', path: 'garden/compost.md' },
      ],
      relatedNotes: [
        { path: 'garden/compost.md', title: 'Compost' },
        { path: 'garden/plan.md', title: 'Garden plan' },
      ],
      provider: d.name,
      model: 'm1',
    });
    const calls = t.fake.calls();
    expect(calls).toHaveLength(3);
    expect(d.toolNames(calls[0]!).sort()).toEqual(
      ['append_to_note', 'backlinks', 'create_note', 'list_folder', 'read_note', 'search_notes'].sort(),
    );
    const [search] = d.results(calls[1]!);
    expect(search.output.results.map((r: any) => r.path)).toEqual(['garden/compost.md', 'garden/plan.md']);
    const read = d.results(calls[2]!)[1];
    expect(read.output).toMatchObject({
      path: 'garden/compost.md',
      content: expect.stringContaining('two weeks'),
    });
  });

  it('puts the notePath note into the context', async () => {
    const t = await setup(() => ({ text: 'It is about beds.' }));
    const res = await t.chat({ message: 'What is this about?', notePath: 'garden/plan.md' });
    expect(res.status).toBe(200);
    expect(d.system(t.fake.calls()[0]!)).toContain('Three raised beds by the fence.');
    expect(res.json.data.actions).toEqual([]);
    const missing = await t.chat({ message: 'What is this about?', notePath: 'nope.md' });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOTE_NOT_FOUND');
    const bad = await t.chat({ message: 'x', notePath: '../etc/passwd' });
    expect(bad.status).toBe(400);
  });

  it('with a note open, a question about the vault gets the note as a hint and passages with headings', async () => {
    const t = await setup((n) =>
      n === 1
        ? { calls: [{ name: 'search_notes', args: { query: 'compost heap' } }] }
        : { text: 'Every two weeks (garden/compost.md).' },
    );
    const res = await t.chat({ message: 'How often do I turn the heap?', notePath: 'garden/plan.md' });
    expect(res.status).toBe(200);
    const system = d.system(t.fake.calls()[0]!);
    expect(system).toContain('"Garden plan" (garden/plan.md) open. It is context, not the answer');
    expect(system).not.toContain('Three raised beds by the fence.');
    const [search] = d.results(t.fake.calls()[1]!);
    expect(search.output.results[0]).toMatchObject({
      path: 'garden/compost.md',
      heading: 'Compost',
      passage: expect.stringContaining('Turn the compost heap every two weeks.'),
    });
    expect(res.json.data.citations).toEqual([
      { path: 'garden/compost.md', title: 'Compost', heading: 'Compost' },
    ]);
  });

  it('creates a note when create_note is called', async () => {
    const t = await setup((n) =>
      n === 1
        ? {
            calls: [
              {
                name: 'create_note',
                args: { path: 'ideas/pond.md', content: '# Pond\n\nDig it in autumn.\n' },
              },
            ],
          }
        : { text: 'Created ideas/pond.md.' },
    );
    const res = await t.chat({ message: 'Make a note about the pond' });
    expect(res.status).toBe(200);
    expect(res.json.data.actions).toEqual([
      { type: 'create_note', summary: 'Created "Pond".', path: 'ideas/pond.md' },
    ]);
    expect((await t.notes.get('ideas/pond.md')).content).toBe('# Pond\n\nDig it in autumn.\n');
    expect(d.results(t.fake.calls()[1]!)[0].output).toEqual({ created: 'ideas/pond.md', title: 'Pond' });
  });

  it('refuses create_note for a public channel: not offered, not run, the model is told', async () => {
    const t = await setup((n) =>
      n === 1
        ? { calls: [{ name: 'create_note', args: { path: 'spam.md', content: 'spam' } }] }
        : { text: 'I cannot create notes from Telegram.' },
    );
    const res = await t.chat({ message: 'Create a note spam', channel: 'telegram' });
    expect(res.status).toBe(200);
    expect(res.json.data.actions).toEqual([]);
    expect(res.json.data.reply).toBe('I cannot create notes from Telegram.');
    await expect(t.notes.get('spam.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    const [first, second] = t.fake.calls();
    expect(d.toolNames(first!)).not.toContain('create_note');
    expect(d.toolNames(first!)).not.toContain('append_to_note');
    const [refusal] = d.results(second!);
    expect(refusal.output.error).toBe('Refused: tools that change notes are off for messages from telegram.');
    if (d.name === 'anthropic') expect(refusal.isError).toBe(true);
  });

  it('stops the tool loop at maxSteps', async () => {
    const t = await setup(() => ({ calls: [{ name: 'search_notes', args: { query: 'garden' } }] }), {
      maxSteps: 3,
    });
    const res = await t.chat({ message: 'loop forever' });
    expect(res.status).toBe(200);
    expect(t.fake.calls()).toHaveLength(3);
    expect(res.json.data.actions).toHaveLength(3);
    expect(res.json.data.reply).toContain('I stopped after 3 steps without a final answer');
  });

  it('hands bad arguments and unknown tools back to the model as errors', async () => {
    const t = await setup((n) =>
      n === 1
        ? {
            calls: [
              { name: 'read_note', args: { path: 42 } },
              { name: 'delete_everything', args: {} },
            ],
          }
        : { text: 'Sorry.' },
    );
    const res = await t.chat({ message: 'read' });
    expect(res.status).toBe(200);
    expect(res.json.data.actions).toEqual([]);
    const results = d.results(t.fake.calls()[1]!);
    expect(results[0].output.error).toMatch(/^Invalid path/);
    expect(results[1].output.error).toBe('There is no tool "delete_everything".');
  });

  it('reports status with a cached reachability probe', async () => {
    const t = await setup(() => ({ text: 'x' }));
    const s1 = await t.send('GET', '/api/v1/agent/status');
    expect(s1.status).toBe(200);
    expect(s1.json.data).toMatchObject({
      enabled: true,
      provider: d.name,
      model: 'm1',
      local: false,
      reachable: true,
    });
    expect(s1.json.data.tools).toHaveLength(6);
    await t.send('GET', '/api/v1/agent/status');
    const probes = t.fake.requests.filter((r) => r.method === 'GET');
    expect(probes).toHaveLength(1);
    expect(probes[0]!.path).toBe('/v1/models');
    if (d.name === 'anthropic') expect(probes[0]!.headers['x-api-key']).toBe(KEY);
    else expect(probes[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(s1.text).not.toContain(KEY);
  });

  it('never puts the key into responses or logs', async () => {
    let n = 0;
    const t = await setup(() => {
      n++;
      if (n === 1) return { calls: [{ name: 'search_notes', args: { query: 'garden' } }] };
      if (n === 2) return { text: 'done' };
      if (n === 3) return d.error(401, `Incorrect API key provided: ${KEY}`);
      return d.error(500, `upstream said ${KEY}`);
    });
    const ok = await t.chat({ message: 'hello' });
    const failed = await t.chat({ message: 'hello again' });
    const failed2 = await t.chat({ message: 'and again' });
    expect(failed2.status).toBe(502);
    const status = await t.send('GET', '/api/v1/agent/status');
    expect(ok.status).toBe(200);
    expect(failed.status).toBe(502);
    expect(t.lines.length).toBeGreaterThan(0);
    for (const text of [ok.text, failed.text, failed2.text, status.text, t.lines.join('\n')]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(KEY.slice(3, 15));
    }
  });
});
