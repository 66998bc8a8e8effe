/**
 * The agent's shapes, shared by the agent, the channels that feed it, and the plugins that
 * contribute tools to it. Framework-free: tools are described by valibot schemas.
 */
import type * as v from 'valibot';
import type { Principal } from '../ports.ts';

/** Where a chat message came from. Public channels (telegram, whatsapp) get no write tools by default. */
export type ChannelKind = 'telegram' | 'whatsapp' | 'web';

/** One thing the agent actually did while answering (every tool it ran). */
export interface AgentAction {
  /** The tool's name, e.g. `search_notes`, `create_note`. */
  type: string;
  /** One human sentence: what it did. */
  summary: string;
  /** The note it concerned, when there is one. */
  path?: string;
}

/** A note the answer drew on or points at. */
export interface RelatedNote {
  path: string;
  title: string;
}

/** A passage an answer drew on: its note and the heading it sits under ('' before the first heading). */
export interface Citation {
  path: string;
  title: string;
  heading: string;
}

/** One earlier turn of a conversation (channels keep these per conversation). */
export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** What `POST /api/v1/agent/chat` carries, plus what channels add. */
export interface ChatInput {
  message: string;
  /** Puts this note into the context. */
  notePath?: string;
  channel?: ChannelKind;
  /** Earlier turns, oldest first. */
  history?: ChatTurn[];
  /**
   * Whether tools that change notes may run. Default: allowed for direct calls and `web`,
   * refused for `telegram` and `whatsapp`.
   */
  allowWrite?: boolean;
  /** Aborts the chat (client gone, shutdown). */
  signal?: AbortSignal;
  /**
   * Who asks (the HTTP route passes the request's key): a scoped key's chat searches, reads and
   * writes only what the key may (core/auth/scoped.ts), and gets no plugin tools. Absent: the
   * server itself (channels, plugins), with full access.
   */
  principal?: Principal;
}

/** The chat reply (docs/reference/agent.md, "Answers"). */
export interface ChatReply {
  reply: string;
  actions: AgentAction[];
  relatedNotes: RelatedNote[];
  /** The passages the answer drew on (path and heading), in the order they were found. */
  citations: Citation[];
  provider: string;
  model: string;
  /** ISO 8601 UTC with milliseconds. */
  createdAt: string;
}

/** What a tool run gives back: the output for the model, and the record of what it did. */
export interface ToolOutcome {
  /** JSON-serializable result handed to the model (or rendered by the local provider). */
  output: unknown;
  action: AgentAction;
  /** Notes this run touched or found, for `relatedNotes`. */
  related?: RelatedNote[];
  /** Passages this run handed over (search hits with their headings), for `citations`. */
  cited?: Citation[];
}

/** What a tool is told about the chat it runs in. */
export interface ToolContext {
  channel?: ChannelKind;
  /** The note the user has open: a hint for searches, not the answer. */
  notePath?: string;
  signal?: AbortSignal;
}

/** A tool the agent can call. Implemented once in the core (or contributed by a plugin). */
export interface AgentTool<S extends v.GenericSchema = v.GenericSchema> {
  /** snake_case, unique among the tools of one chat. */
  name: string;
  /** What it does, for the model. */
  description: string;
  /** Schema of its arguments (an object schema). */
  input: S;
  /** True when it changes notes or state (refused when writes are off). */
  write: boolean;
  run(args: v.InferOutput<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Extra tools asked for on every chat, so plugins can come and go without a restart. */
export type ToolSource = () => AgentTool[];
