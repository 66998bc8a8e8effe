/** Every stable error code the core and its adapters may answer with. */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'FRONTMATTER_TOO_LARGE'
  | 'INVALID_PATH'
  | 'INVALID_JSON'
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'INVALID_TOKEN'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'NOTE_NOT_FOUND'
  | 'FOLDER_NOT_FOUND'
  | 'FILE_NOT_FOUND'
  | 'TARGET_NOT_FOUND'
  | 'CHANNEL_NOT_FOUND'
  | 'PLUGIN_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'NOTE_ALREADY_EXISTS'
  | 'FILE_ALREADY_EXISTS'
  | 'CONFLICT'
  | 'GONE'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'URI_TOO_LONG'
  | 'HEADERS_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RANGE_NOT_SATISFIABLE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'AGENT_PROVIDER_ERROR'
  | 'PLUGIN_ERROR'
  | 'EMBEDDINGS_ERROR'
  | 'SSO_PROVIDER_ERROR'
  | 'SERVER_OFFLINE'
  | 'AGENT_DISABLED'
  | 'NOT_READY'
  | 'RELAY_TIMEOUT'
  | 'REQUEST_TIMEOUT';

/** A failure the caller can act on. Adapters map `code` to a status in one table. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  /** Seconds the caller should wait before retrying (answered as `Retry-After`). */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, details?: unknown, retryAfter?: number) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    if (retryAfter !== undefined) this.retryAfter = Math.max(1, Math.ceil(retryAfter));
  }
}

/** True when `err` is a DomainError (also across module copies). */
export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError || (err instanceof Error && err.name === 'DomainError' && 'code' in err);
}
