/** Quire's core: framework-free, runtime-free. */
export {
  type Agent,
  type AgentDeps,
  type AgentStatus,
  createAgent,
  localProvider,
  noteTools,
  writesAllowed,
} from './agent/agent.ts';
export type {
  AgentMessage,
  LlmProvider,
  StepRequest,
  StepResult,
  ToolCall,
  ToolResult,
  ToolSpec,
} from './agent/provider.ts';
export { ChatBody } from './agent/schemas.ts';
export type * from './agent/types.ts';
export { PROVIDERS, type ProviderInfo } from './channels/providers.ts';
export { CreateChannelBody, ToggleChannelBody, WebMessageBody } from './channels/schemas.ts';
export {
  type ChannelService,
  type ChannelServiceDeps,
  channelView,
  createChannelService,
} from './channels/service.ts';
export { ChannelStateError } from './channels/store.ts';
export type * from './channels/types.ts';
export {
  type Core,
  type CoreDeps,
  type CoreSettings,
  createCore,
  type ServerCore,
  type ServerCoreDeps,
} from './create-core.ts';
export { sha256Hex } from './crypto.ts';
export { DomainError, type ErrorCode, isDomainError } from './errors.ts';
export { createLinkGraph, type LinkGraph, type LinkRef, type ResolvedLink } from './notes/link-graph.ts';
export { splitFrontmatter } from './notes/markdown/parts.ts';
export { analyzeMarkdown } from './notes/markdown/remark.ts';
export type { LinkOccurrence, MarkdownAnalysis } from './notes/markdown/types.ts';
export type { IndexEntry, NoteLink, NoteSummary } from './notes/note-index.ts';
export {
  type BatchAnalyzer,
  createNoteService,
  type FolderNode,
  ifMatchHolds,
  type Note,
  type NoteEvent,
  type NoteService,
  type NoteServiceDeps,
} from './notes/service.ts';
export { validateFolderPath, validateNotePath } from './paths.ts';
export * from './plugins/index.ts';
export type {
  Authenticator,
  Clock,
  Embeddings,
  FileInfo,
  Logger,
  NoteStore,
  Principal,
  RequestCredentials,
  StateStore,
  StoreChange,
} from './ports.ts';
export { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from './schemas.ts';
export type { Retrieval, RetrievalHit, RetrievalResult, SearchMode } from './search/retrieval.ts';
export type { SemanticIndex, SemanticStatus } from './search/semantic/semantic-index.ts';
export type { SearchHit } from './search/types.ts';
export { CHECKS, gradeOf, recommendationsOf, runAudit, scoreOf } from './security/audit.ts';
export {
  createSecurityService,
  type SecurityDeps,
  type SecurityService,
  type SecuritySettings,
} from './security/service.ts';
export type * from './security/types.ts';
