/**
 * The agent: chat over your notes through an LLM provider port, with the core's tools and a
 * bounded tool loop (steps and time). Providers are adapters; `localProvider` is the offline one.
 */

import { hasCapability } from '../auth/scope.ts';
import { scopedNotes, scopedRetrieval } from '../auth/scoped.ts';
import { DomainError, isDomainError } from '../errors.ts';
import type { KeyNames } from '../history/author.ts';
import type { NoteService } from '../notes/service.ts';
import { validateNotePath } from '../paths.ts';
import type { Clock, Logger } from '../ports.ts';
import { createRetrieval, type Retrieval } from '../search/retrieval.ts';
import { contextPassages } from './context-passages.ts';
import { historyTools } from './history-tools.ts';
import { asksAboutOpenNote } from './intent.ts';
import { runLoop } from './loop.ts';
import type { LlmProvider } from './provider.ts';
import { MAX_MESSAGE_CHARS } from './schemas.ts';
import { noteTools, READ_LIMIT } from './tools.ts';
import type { AgentTool, ChannelKind, ChatInput, ChatReply, ToolSource } from './types.ts';

export { localProvider } from './local-provider.ts';
export type { LlmProvider } from './provider.ts';
export { noteTools } from './tools.ts';

/** What `GET /api/v1/agent/status` answers. */
export interface AgentStatus {
  enabled: boolean;
  provider: string;
  model: string;
  /** One honest sentence about the provider. */
  description: string;
  /** True when the provider runs offline inside the server (no language model). */
  local: boolean;
  /** Provider answered its probe (cached ~30 s); null when it was not asked (agent disabled). */
  reachable: boolean | null;
  tools: { name: string; description: string; write: boolean }[];
  /** Whether write tools run for each kind of caller when the message does not say. */
  writes: Record<ChannelKind | 'direct', boolean>;
  limits: { maxSteps: number; timeoutMs: number };
}

/** The agent as the HTTP routes, channels and plugins see it. */
export interface Agent {
  status(): Promise<AgentStatus>;
  chat(input: ChatInput): Promise<ChatReply>;
  /** Core tools plus the ones `extraTools` contributes right now. */
  tools(): AgentTool[];
}

/** Everything `createAgent` needs. */
export interface AgentDeps {
  notes: NoteService;
  /** A key's name by its id, so the history tools name authors by device (default: none known). */
  keyNames?: KeyNames;
  /** The search the tools use (hybrid when embeddings are on); default: lexical over `notes`. */
  retrieval?: Retrieval;
  clock: Clock;
  logger?: Logger;
  provider: LlmProvider;
  /** False: chat throws `AGENT_DISABLED` (default true). */
  enabled?: boolean;
  /** Tools contributed by plugins; asked on every chat. */
  extraTools?: ToolSource;
  /** Most provider steps in one chat (default 8). */
  maxSteps?: number;
  /** Longest a chat may take, in ms (default 60,000). */
  timeoutMs?: number;
}

const PROBE_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 3_000;

/** Whether writes run by default for a message from `channel` (public channels: no). */
export function writesAllowed(input: Pick<ChatInput, 'channel' | 'allowWrite'>): boolean {
  if (input.allowWrite !== undefined) return input.allowWrite;
  return input.channel !== 'telegram' && input.channel !== 'whatsapp';
}

const SYSTEM = [
  "You are the assistant of Quire, a markdown note server. Answer from the user's notes.",
  'Use the tools to search and read notes before answering questions about them; cite the passages you used as path › heading.',
  'Only change notes (create_note, append_to_note, restore_version, restore_from_trash) when the user asks for it.',
  'Be concise. If the notes do not contain the answer, say so.',
].join(' ');

/**
 * The open note goes into the context whole only when the question is about it ("summarize
 * this", "what links here"); any other question is about the vault, and the note is a hint.
 */
async function contextOf(
  notes: NoteService,
  notePath: string | undefined,
  message: string,
): Promise<{ path?: string; text: string; whole?: boolean }> {
  if (notePath === undefined || notePath.trim() === '') return { text: '' };
  const note = await notes.get(validateNotePath(notePath.trim()));
  if (!asksAboutOpenNote(message)) {
    return {
      path: note.path,
      text: `\n\nThe user has the note "${note.title}" (${note.path}) open. It is context, not the answer: the question is about the whole vault, so search the notes (search_notes) and answer from the passages found.`,
    };
  }
  const body = note.content.length > READ_LIMIT ? `${note.content.slice(0, READ_LIMIT)}\n[…]` : note.content;
  return {
    path: note.path,
    whole: true,
    text: `\n\nThe user is looking at the note "${note.title}" (${note.path}):\n<note>\n${body}\n</note>`,
  };
}

/** Builds the agent. */
export function createAgent(deps: AgentDeps): Agent {
  const { notes, clock, logger, provider } = deps;
  const enabled = deps.enabled ?? true;
  const maxSteps = deps.maxSteps ?? 8;
  const timeoutMs = deps.timeoutMs ?? 60_000;
  const core = [...noteTools(notes, deps.retrieval), ...historyTools(notes, deps.keyNames)];
  let probe: { at: number; value: Promise<boolean> } | null = null;

  const tools = (): AgentTool[] => {
    const out = [...core];
    const names = new Set(out.map((t) => t.name));
    let extra: AgentTool[] = [];
    try {
      extra = deps.extraTools?.() ?? [];
    } catch (err) {
      logger?.warn('extra tools could not be listed', { error: String(err) });
    }
    for (const t of extra) {
      if (!/^[a-z][a-z0-9_]{0,63}$/.test(t.name) || names.has(t.name)) {
        logger?.warn('skipping a contributed tool with a bad or duplicate name', { tool: t.name });
        continue;
      }
      names.add(t.name);
      out.push(t);
    }
    return out;
  };

  const reachable = (): Promise<boolean> => {
    if (!provider.probe) return Promise.resolve(true);
    const now = clock.now();
    if (probe && now - probe.at < PROBE_TTL_MS) return probe.value;
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), PROBE_TIMEOUT_MS);
    const value = provider
      .probe(ctl.signal)
      .catch(() => false)
      .finally(() => clearTimeout(timer));
    probe = { at: now, value };
    return value;
  };

  return {
    tools,

    async status() {
      return {
        enabled,
        provider: provider.name,
        model: provider.model,
        description: provider.description,
        local: !provider.probe,
        reachable: enabled ? await reachable() : null,
        tools: tools().map(({ name, description, write }) => ({ name, description, write })),
        writes: { direct: true, web: true, telegram: false, whatsapp: false },
        limits: { maxSteps, timeoutMs },
      };
    },

    async chat(input) {
      if (!enabled) {
        throw new DomainError('AGENT_DISABLED', 'The agent is switched off (AGENT_ENABLED=false).');
      }
      const message = typeof input.message === 'string' ? input.message.trim() : '';
      if (message === '' || message.length > MAX_MESSAGE_CHARS) {
        throw new DomainError('VALIDATION_ERROR', `message must be 1 to ${MAX_MESSAGE_CHARS} characters.`);
      }
      const started = clock.now();
      // A scoped key's chat sees and changes only what the key may (core/auth/scoped.ts).
      const p = input.principal;
      const scoped = p?.scope !== undefined;
      const view = scoped ? scopedNotes(notes, p) : notes;
      const base = deps.retrieval ?? createRetrieval({ notes });
      const retrieval = scoped ? scopedRetrieval(base, p) : base;
      const toolset = scoped
        ? [...noteTools(view, retrieval), ...historyTools(view, deps.keyNames)]
        : tools();
      const allowWrite = writesAllowed(input) && hasCapability(p?.scope, 'notes:write');
      const ctx = await contextOf(view, input.notePath, message);
      // A language model starts from what search ranks first (the offline provider searches itself).
      const found =
        provider.name === 'local' || ctx.whole
          ? { text: '', cited: [] }
          : await contextPassages(retrieval, message, ctx.path, logger);
      try {
        const out = await runLoop({
          provider,
          tools: toolset,
          allowWrite,
          system: SYSTEM + ctx.text + found.text,
          cited: found.cited,
          history: input.history ?? [],
          message,
          notePath: ctx.path,
          channel: input.channel,
          signal: input.signal,
          maxSteps,
          timeoutMs,
          logger,
        });
        logger?.info('agent chat', {
          provider: provider.name,
          model: provider.model,
          channel: input.channel ?? 'direct',
          steps: out.steps,
          actions: out.actions.length,
          ms: clock.now() - started,
        });
        return {
          reply: out.reply,
          actions: out.actions,
          relatedNotes: out.related,
          citations: out.citations,
          provider: provider.name,
          model: provider.model,
          createdAt: new Date(clock.now()).toISOString(),
        };
      } catch (err) {
        logger?.warn('agent chat failed', {
          provider: provider.name,
          code: isDomainError(err) ? err.code : 'INTERNAL_ERROR',
          ms: clock.now() - started,
        });
        throw err;
      }
    },
  };
}
