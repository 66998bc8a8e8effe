import { type Agent, createAgent } from './agent/agent.ts';
import { localProvider } from './agent/local-provider.ts';
import type { LlmProvider } from './agent/provider.ts';
import type { ToolSource } from './agent/types.ts';
import { type BatchAnalyzer, createNoteService, type NoteService } from './notes/service.ts';
import type { Clock, FileStore, Logger, NoteStore, StateStore } from './ports.ts';

/** Everything `createCore` needs: a store and a clock; the rest has defaults. */
export interface CoreDeps {
  /** Where the notes live (memory, filesystem, R2, ...). */
  store: NoteStore;
  /** The vault's other files (attachments), so that links and embeds to them resolve. */
  files?: FileStore;
  /** Wall clock (`{ now: Date.now }`). */
  clock: Clock;
  /** Where the index cache lives; without it every start re-parses the vault. */
  state?: StateStore;
  logger?: Logger;
  /** The agent's model (default: the offline `local` provider). */
  provider?: LlmProvider;
  /** False: chat answers `AGENT_DISABLED` (default true). */
  agentEnabled?: boolean;
  /** Tools plugins contribute to the agent. */
  agentTools?: ToolSource;
  /** Most agent steps per chat (default 8) and the longest chat in ms (default 60,000). */
  agentLimits?: { maxSteps?: number; timeoutMs?: number };
  /** Parses many notes at once (a runtime may spread this over threads). */
  analyze?: BatchAnalyzer;
}

/** The core of a Quire server: notes (index, links, search) and the agent over them. */
export interface Core {
  notes: NoteService;
  agent: Agent;
  /** Indexes the store (reusing the index cache in `state` when there is one); call once before use. */
  load(onProgress?: (done: number, total: number) => void): Promise<void>;
  /** Waits for writes in flight, then saves the index cache when it changed. */
  flush(): Promise<void>;
}

/**
 * Builds the core for embedding: no HTTP, no platform. Hand the result to `createApp` for the
 * HTTP API, or call `notes` and `agent` directly from a script or another app.
 */
export function createCore(deps: CoreDeps): Core {
  const notes = createNoteService({
    store: deps.store,
    clock: deps.clock,
    state: deps.state,
    logger: deps.logger,
    analyze: deps.analyze,
    files: deps.files,
  });
  const agent = createAgent({
    notes,
    clock: deps.clock,
    logger: deps.logger,
    provider: deps.provider ?? localProvider(),
    enabled: deps.agentEnabled,
    extraTools: deps.agentTools,
    maxSteps: deps.agentLimits?.maxSteps,
    timeoutMs: deps.agentLimits?.timeoutMs,
  });
  return {
    notes,
    agent,
    load: (onProgress) => notes.load(onProgress),
    async flush() {
      await notes.drain();
      await notes.saveCache();
    },
  };
}
