import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { type AgentTool, createAgent, type LlmProvider, type StepRequest } from '../../../core/index.ts';
import { vaultNotes } from '../../helpers/agent-fixtures.ts';
import { capturingLogger } from '../../helpers/logger.ts';

/** A scripted provider (a port fake: the model is outside the code under test). */
function scripted(
  steps: ((req: StepRequest) => { text?: string; calls?: { name: string; args: unknown }[] })[],
) {
  const seen: StepRequest[] = [];
  let probes = 0;
  const provider: LlmProvider = {
    name: 'scripted',
    model: 's1',
    description: 'test double',
    async step(req) {
      seen.push({ ...req, messages: [...req.messages] });
      const s = steps[seen.length - 1]!(req);
      return { text: s.text ?? '', toolCalls: (s.calls ?? []).map((c, i) => ({ id: `c${i}`, ...c })) };
    },
    async probe() {
      probes++;
      return true;
    },
  };
  return { provider, seen, probes: () => probes };
}

const echo: AgentTool = {
  name: 'echo_text',
  description: 'Echoes text.',
  input: v.object({ text: v.string() }),
  write: false,
  async run(args) {
    const { text } = args as { text: string };
    return { output: { echoed: text }, action: { type: 'echo_text', summary: `Echoed ${text}.` } };
  },
};

describe('createAgent', () => {
  it('offers and runs plugin tools, asked on every chat; skips duplicate and bad names', async () => {
    const { notes, clock } = await vaultNotes();
    const { logger, lines } = capturingLogger();
    let extra: AgentTool[] = [echo, { ...echo, name: 'read_note' }, { ...echo, name: 'Bad-Name' }];
    const s = scripted([
      () => ({ calls: [{ name: 'echo_text', args: { text: 'hi' } }] }),
      () => ({ text: 'done' }),
      () => ({ calls: [{ name: 'echo_text', args: { text: 'again' } }] }),
      () => ({ text: 'gone' }),
    ]);
    const agent = createAgent({ notes, clock, logger, provider: s.provider, extraTools: () => extra });
    expect(agent.tools().map((t) => t.name)).toContain('echo_text');
    expect(agent.tools().filter((t) => t.name === 'read_note')).toHaveLength(1);
    expect(agent.tools().map((t) => t.name)).not.toContain('Bad-Name');
    const r = await agent.chat({ message: 'echo hi' });
    expect(r.actions).toEqual([{ type: 'echo_text', summary: 'Echoed hi.' }]);
    expect(s.seen[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      results: [{ id: 'c0', name: 'echo_text', output: { echoed: 'hi' } }],
    });
    expect(lines.some((l) => l.includes('duplicate'))).toBe(true);
    extra = [];
    const r2 = await agent.chat({ message: 'echo again' });
    expect(r2.actions).toEqual([]);
    expect(s.seen[2]!.tools.map((t) => t.name)).not.toContain('echo_text');
  });

  it('passes history and the write policy to the provider', async () => {
    const { notes, clock } = await vaultNotes();
    const s = scripted([() => ({ text: 'a' }), () => ({ text: 'b' })]);
    const agent = createAgent({ notes, clock, provider: s.provider });
    await agent.chat({
      message: 'now',
      channel: 'telegram',
      history: [
        { role: 'user', content: 'before' },
        { role: 'assistant', content: 'reply' },
      ],
    });
    expect(s.seen[0]!.messages).toEqual([
      { role: 'user', content: 'before' },
      { role: 'assistant', content: 'reply' },
      { role: 'user', content: 'now' },
    ]);
    expect(s.seen[0]!.tools.some((t) => t.write)).toBe(false);
    await agent.chat({ message: 'now', channel: 'telegram', allowWrite: true });
    expect(s.seen[1]!.tools.filter((t) => t.write).map((t) => t.name)).toEqual([
      'create_note',
      'append_to_note',
    ]);
  });

  it('caches the reachability probe for 30 s of the clock', async () => {
    const { notes } = await vaultNotes();
    let now = 1_000_000;
    const s = scripted([]);
    const agent = createAgent({ notes, clock: { now: () => now }, provider: s.provider });
    expect((await agent.status()).reachable).toBe(true);
    now += 29_000;
    await agent.status();
    expect(s.probes()).toBe(1);
    now += 2_000;
    await agent.status();
    expect(s.probes()).toBe(2);
  });

  it('stops when the caller aborts', async () => {
    const { notes, clock } = await vaultNotes();
    const ctl = new AbortController();
    const provider: LlmProvider = {
      name: 'slow',
      model: 'm',
      description: 'never answers',
      step: () => new Promise(() => ctl.abort()),
    };
    const agent = createAgent({ notes, clock, provider });
    await expect(agent.chat({ message: 'hi', signal: ctl.signal })).rejects.toMatchObject({
      code: 'AGENT_PROVIDER_ERROR',
      message: 'The chat was cancelled.',
    });
  });

  it('turns an unexpected provider exception into AGENT_PROVIDER_ERROR without its text', async () => {
    const { notes, clock } = await vaultNotes();
    const provider: LlmProvider = {
      name: 'broken',
      model: 'm',
      description: 'throws',
      step: async () => {
        throw new Error('secret-internal-detail');
      },
    };
    const { logger, lines } = capturingLogger();
    const agent = createAgent({ notes, clock, logger, provider });
    const err = await agent.chat({ message: 'hi' }).catch((e) => e);
    expect(err).toMatchObject({ code: 'AGENT_PROVIDER_ERROR' });
    expect(err.message).toContain('check AGENT_BASE_URL, AGENT_MODEL and AGENT_API_KEY');
    expect(`${err.message}${lines.join('')}`).not.toContain('secret-internal-detail');
  });
});
