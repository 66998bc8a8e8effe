import { describe, expect, it } from 'vitest';
import { createApp } from '../../adapters/http/app.ts';
import { createAgent, localProvider } from '../../core/index.ts';
import { vaultNotes } from '../helpers/agent-fixtures.ts';
import { requester } from '../helpers/app.ts';
import { silentLogger } from '../helpers/logger.ts';

async function app(opts: { enabled?: boolean; agent?: boolean } = {}) {
  const { notes, clock } = await vaultNotes();
  const agent =
    opts.agent === false
      ? undefined
      : createAgent({ notes, clock, provider: localProvider(), enabled: opts.enabled });
  const send = requester(createApp({ notes, version: 't', clock, logger: silentLogger, agent }));
  return { notes, send, chat: (body: unknown) => send('POST', '/api/v1/agent/chat', { body }) };
}

describe('the agent routes', () => {
  it('answers status and chat in the envelope', async () => {
    const t = await app();
    const s = await t.send('GET', '/api/v1/agent/status');
    expect(s.status).toBe(200);
    expect(s.json).toMatchObject({
      success: true,
      data: { enabled: true, provider: 'local', reachable: true },
    });
    const r = await t.chat({ message: 'compost', channel: 'web' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.data).sort()).toEqual(
      ['actions', 'citations', 'createdAt', 'model', 'provider', 'relatedNotes', 'reply'].sort(),
    );
  });

  it.each([
    ['{not json', 'INVALID_JSON', undefined],
    [{}, 'VALIDATION_ERROR', 'message'],
    [{ message: '' }, 'VALIDATION_ERROR', 'message'],
    [{ message: 'x'.repeat(20_001) }, 'VALIDATION_ERROR', 'message'],
    [{ message: 42 }, 'VALIDATION_ERROR', 'message'],
    [{ message: 'hi', channel: 'sms' }, 'VALIDATION_ERROR', 'channel'],
    [{ message: 'hi', notePath: 7 }, 'VALIDATION_ERROR', 'notePath'],
  ])('answers 400 for the body %j', async (body, code, field) => {
    const t = await app();
    const r = await t.chat(body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe(code);
    if (field) expect(r.json.error.details.issues[0].field).toBe(field);
  });

  it('answers a whitespace-only message with 400', async () => {
    const t = await app();
    const r = await t.chat({ message: '   ' });
    expect(r.status).toBe(400);
  });

  it('applies the public-channel write rule over HTTP', async () => {
    const t = await app();
    const r = await t.chat({ message: 'create a note titled Hello', channel: 'whatsapp' });
    expect(r.status).toBe(200);
    expect(r.json.data.actions).toEqual([]);
    await expect(t.notes.get('Hello.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
    const web = await t.chat({ message: 'create a note titled Hello', channel: 'web' });
    expect(web.json.data.actions).toEqual([
      { type: 'create_note', summary: 'Created "Hello".', path: 'Hello.md' },
    ]);
  });

  it('answers 503 AGENT_DISABLED when the agent is off, and still reports status', async () => {
    const t = await app({ enabled: false });
    const r = await t.chat({ message: 'hi' });
    expect(r.status).toBe(503);
    expect(r.json.error.code).toBe('AGENT_DISABLED');
    expect(r.json.error.message).toContain('AGENT_ENABLED=false');
    const s = await t.send('GET', '/api/v1/agent/status');
    expect(s.json.data).toMatchObject({ enabled: false, provider: 'local' });
  });

  it('keeps the retired GET /agent/tools answer (410)', async () => {
    const t = await app();
    const r = await t.send('GET', '/api/v1/agent/tools');
    expect(r.status).toBe(410);
    expect(r.json.error.code).toBe('GONE');
  });

  it('does not mount the agent routes without an agent', async () => {
    const t = await app({ agent: false });
    expect((await t.send('GET', '/api/v1/agent/status')).status).toBe(404);
  });
});
