import type { KeyNames } from '../../../core/history/author.ts';
import type { NoteService } from '../../../core/notes/service.ts';
import type { Retrieval } from '../../../core/search/retrieval.ts';

/** What the MCP endpoint needs. */
export interface McpDeps {
  notes: NoteService;
  /** The search `search_notes` runs (hybrid when embeddings are on); default: lexical over `notes`. */
  retrieval?: Retrieval;
  version: string;
  /** List and allow the write tools (MCP_WRITE, default on). */
  write: boolean;
  /**
   * List the write tools to this key (false without notes:write; default on). A call of one is
   * still refused by the scoped note service, naming the capability.
   */
  canWrite?: boolean;
  /** List and allow the read tools and resources (false for a key without notes:read; default on). */
  read?: boolean;
  /** Who the request is for, as REST credits it (`key:<id>`, `jwt:<subject>`; none without auth). */
  principalActor?: string;
  /** The `by` of this request's writes (set per request by mcp-server.ts; default `mcp`). */
  by?: string;
  /** A key's name by its id: the history tools name authors by device (default: none known). */
  keyNames?: KeyNames;
  /** The largest answer to one POST (MCP_MAX_ANSWER_BYTES, default 4 MiB). */
  maxAnswerBytes?: number;
}
