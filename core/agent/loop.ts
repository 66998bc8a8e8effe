/**
 * The bounded tool loop: ask the provider for a step, run the tools it calls, hand back their
 * results, until it answers without tool calls, the step limit is reached, or time runs out.
 */
import * as v from 'valibot';
import { DomainError, isDomainError } from '../errors.ts';
import type { Logger } from '../ports.ts';
import type { AgentMessage, LlmProvider, StepResult, ToolCall, ToolResult } from './provider.ts';
import type { AgentAction, AgentTool, ChannelKind, ChatTurn, Citation, RelatedNote } from './types.ts';

/** Most tool calls run from one provider step (the rest are answered with an error). */
export const MAX_CALLS_PER_STEP = 16;
const MAX_RELATED = 20;

export interface LoopInput {
  provider: LlmProvider;
  tools: AgentTool[];
  allowWrite: boolean;
  system: string;
  history: ChatTurn[];
  message: string;
  notePath?: string;
  channel?: ChannelKind;
  signal?: AbortSignal;
  maxSteps: number;
  timeoutMs: number;
  logger?: Logger;
  /** Passages already handed to the provider (in the system prompt): citable like a tool's. */
  cited?: Citation[];
}

export interface LoopOutput {
  reply: string;
  actions: AgentAction[];
  related: RelatedNote[];
  citations: Citation[];
  steps: number;
}

/** Rejects when `signal` aborts, so a provider or tool that ignores the signal still stops. */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The cited passages whose note the reply names (by path or title); all of them when it names none. */
function usedIn(reply: string, cited: Citation[]): Citation[] {
  const used = cited.filter((c) => reply.includes(c.path) || (c.title.length > 2 && reply.includes(c.title)));
  return used.length ? used : cited;
}

/** Runs the loop. Throws `AGENT_PROVIDER_ERROR` on provider failure or time-out. */
export async function runLoop(input: LoopInput): Promise<LoopOutput> {
  const { provider, tools, allowWrite, maxSteps, timeoutMs, logger } = input;
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new DomainError('AGENT_PROVIDER_ERROR', 'timed out'));
  }, timeoutMs);
  const onCallerAbort = () => ctl.abort(input.signal?.reason);
  if (input.signal?.aborted) onCallerAbort();
  input.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const offered = tools.filter((t) => allowWrite || !t.write);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const messages: AgentMessage[] = [
    ...input.history.slice(-20).map((t) => ({ role: t.role, content: t.content }) as AgentMessage),
    { role: 'user', content: input.message },
  ];
  const actions: AgentAction[] = [];
  const related = new Map<string, RelatedNote>();
  const cited = new Map((input.cited ?? []).map((c) => [`${c.path}#${c.heading}`, c]));
  const fail = (err: unknown): never => {
    if (timedOut) {
      throw new DomainError(
        'AGENT_PROVIDER_ERROR',
        `The ${provider.name} provider did not finish within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}; check that the model (${provider.model}) is loaded and fast enough, or raise AGENT_TIMEOUT_MS.`,
      );
    }
    if (input.signal?.aborted) throw new DomainError('AGENT_PROVIDER_ERROR', 'The chat was cancelled.');
    if (isDomainError(err)) throw err;
    logger?.warn('agent provider failed', { provider: provider.name, error: (err as Error)?.name });
    throw new DomainError(
      'AGENT_PROVIDER_ERROR',
      `The ${provider.name} provider failed; check AGENT_BASE_URL, AGENT_MODEL and AGENT_API_KEY.`,
    );
  };

  const runCall = async (call: ToolCall, index: number): Promise<ToolResult> => {
    const base = { id: call.id, name: call.name };
    const tool = byName.get(call.name);
    if (index >= MAX_CALLS_PER_STEP)
      return { ...base, output: { error: 'Too many tool calls in one step.' }, isError: true };
    if (!tool) return { ...base, output: { error: `There is no tool "${call.name}".` }, isError: true };
    if (tool.write && !allowWrite) {
      const where = input.channel ? `messages from ${input.channel}` : 'this chat';
      return {
        ...base,
        output: { error: `Refused: tools that change notes are off for ${where}.` },
        isError: true,
      };
    }
    const args = v.safeParse(tool.input, call.args ?? {});
    if (!args.success) {
      const issue = args.issues[0]!;
      return {
        ...base,
        output: { error: `Invalid ${v.getDotPath(issue) ?? 'arguments'}: ${issue.message}` },
        isError: true,
      };
    }
    try {
      const out = await untilAborted(
        tool.run(args.output, { channel: input.channel, notePath: input.notePath, signal: ctl.signal }),
        ctl.signal,
      );
      actions.push(out.action);
      for (const r of out.related ?? []) if (!related.has(r.path)) related.set(r.path, r);
      for (const c of out.cited ?? []) {
        const key = `${c.path}#${c.heading}`;
        if (!cited.has(key)) cited.set(key, c);
      }
      return { ...base, output: out.output };
    } catch (err) {
      if (ctl.signal.aborted) throw err;
      if (isDomainError(err)) return { ...base, output: { error: err.message }, isError: true };
      logger?.warn('agent tool failed', { tool: call.name, error: String(err) });
      return { ...base, output: { error: `The tool ${call.name} failed.` }, isError: true };
    }
  };

  try {
    let last: StepResult = { text: '', toolCalls: [] };
    for (let step = 1; step <= maxSteps; step++) {
      try {
        last = await untilAborted(
          provider.step({
            system: input.system,
            messages,
            tools: offered,
            notePath: input.notePath,
            signal: ctl.signal,
          }),
          ctl.signal,
        );
      } catch (err) {
        fail(err);
      }
      if (last.toolCalls.length === 0) {
        return {
          reply: last.text.trim(),
          actions,
          related: [...related.values()].slice(0, MAX_RELATED),
          citations: usedIn(last.text, [...cited.values()]).slice(0, MAX_RELATED),
          steps: step,
        };
      }
      messages.push({ role: 'assistant', content: last.text, toolCalls: last.toolCalls });
      const results: ToolResult[] = [];
      try {
        for (const [i, call] of last.toolCalls.entries()) results.push(await runCall(call, i));
      } catch (err) {
        fail(err);
      }
      messages.push({ role: 'tool', results });
    }
    const partial = last.text.trim();
    return {
      reply: `${partial ? `${partial}\n\n` : ''}I stopped after ${maxSteps} steps without a final answer; ask a narrower question.`,
      actions,
      related: [...related.values()].slice(0, MAX_RELATED),
      citations: [...cited.values()].slice(0, MAX_RELATED),
      steps: maxSteps,
    };
  } finally {
    clearTimeout(timer);
    input.signal?.removeEventListener('abort', onCallerAbort);
  }
}
