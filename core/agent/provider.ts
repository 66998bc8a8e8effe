/**
 * The LLM provider port. The core runs the tool loop; a provider takes one step of it:
 * given the transcript and the tools on offer, it answers with text, tool calls, or both.
 * Adapters (`adapters/llm/*`) implement it for real models; `localProvider` is the offline one.
 */
import type { AgentTool } from './types.ts';

/** A tool as offered to a provider (its schema is the valibot `input` of the tool). */
export type ToolSpec = Pick<AgentTool, 'name' | 'description' | 'input' | 'write'>;

/** One call of a tool the model asked for. */
export interface ToolCall {
  /** The provider's id of the call (echoed back with its result). */
  id: string;
  name: string;
  args: unknown;
}

/** The result of one tool call, handed back to the model. */
export interface ToolResult {
  id: string;
  name: string;
  /** JSON-serializable output, or `{error}` when the call failed or was refused. */
  output: unknown;
  isError?: boolean;
}

/** One message of the transcript the core keeps during a chat. */
export type AgentMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; results: ToolResult[] };

/** What the core asks a provider for one step. */
export interface StepRequest {
  /** Instructions plus the context (the `notePath` note, when given). */
  system: string;
  /** The transcript, oldest first; the last user message is the one to answer. */
  messages: AgentMessage[];
  /** Tools the model may call in this step (write tools are absent when writes are off). */
  tools: ToolSpec[];
  /** The note the user pointed at (`notePath`), already validated. */
  notePath?: string;
  /** Aborted on time-out or when the caller goes away. */
  signal: AbortSignal;
}

/** What a provider answers for one step. No tool calls means the answer is final. */
export interface StepResult {
  text: string;
  toolCalls: ToolCall[];
}

/** A language model behind the agent. */
export interface LlmProvider {
  /** `local`, `openai`, `anthropic`, ... */
  readonly name: string;
  readonly model: string;
  /** One honest sentence about what this provider is (shown in status). */
  readonly description: string;
  /**
   * One step of the loop. Throws `DomainError('AGENT_PROVIDER_ERROR')` with a message that
   * says what to fix when the model cannot be reached or fails; never puts keys in messages.
   */
  step(req: StepRequest): Promise<StepResult>;
  /** Cheap reachability check (short time-out); absent means "always reachable" (local). */
  probe?(signal: AbortSignal): Promise<boolean>;
}
