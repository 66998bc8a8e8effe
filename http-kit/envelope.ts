import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type * as v from 'valibot';
import { type ErrorCode, isDomainError } from '../core/errors.ts';
import type { Logger } from '../core/ports.ts';
import { readStrictJson } from './json-body.ts';

/** The one map from error code to HTTP status. */
export const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  VALIDATION_ERROR: 400,
  FRONTMATTER_TOO_LARGE: 400,
  INVALID_PATH: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  INVALID_TOKEN: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  NOTE_NOT_FOUND: 404,
  FOLDER_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  TARGET_NOT_FOUND: 404,
  CHANNEL_NOT_FOUND: 404,
  PLUGIN_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOTE_ALREADY_EXISTS: 409,
  FILE_ALREADY_EXISTS: 409,
  CONFLICT: 409,
  GONE: 410,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  AGENT_PROVIDER_ERROR: 502,
  PLUGIN_ERROR: 502,
  EMBEDDINGS_ERROR: 502,
  SSO_PROVIDER_ERROR: 502,
  SERVER_OFFLINE: 503,
  AGENT_DISABLED: 503,
  NOT_READY: 503,
  RELAY_TIMEOUT: 504,
  REQUEST_TIMEOUT: 408,
};

/** The error envelope. */
export function errorBody(code: ErrorCode, message: string, details?: unknown) {
  return {
    success: false as const,
    error: details === undefined ? { code, message } : { code, message, details },
  };
}

/** An error as an answer: status, envelope, headers; `internal` when it is none of ours (log it). */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: ReturnType<typeof errorBody>;
  headers: Record<string, string>;
  internal: boolean;
}

/**
 * The one error answer of every frame (the Hono apps' `onError` and the Node dispatcher):
 * DomainErrors in the envelope with their status (and `Retry-After`), Hono's HTTP exceptions
 * mapped, anything else 500 with no internals (the caller logs it with the request id).
 */
export function errorAnswer(err: unknown, where: string): ErrorAnswer {
  if (isDomainError(err)) {
    const retry = err.retryAfter;
    const headers: Record<string, string> = retry === undefined ? {} : { 'retry-after': String(retry) };
    return {
      status: STATUS[err.code],
      body: errorBody(err.code, err.message, err.details),
      headers,
      internal: false,
    };
  }
  if (err instanceof HTTPException) {
    const code =
      err.status === 413 ? 'PAYLOAD_TOO_LARGE' : err.status === 401 ? 'UNAUTHORIZED' : 'VALIDATION_ERROR';
    const body = errorBody(code, err.message || 'The request was refused.');
    return { status: err.status as ContentfulStatusCode, body, headers: {}, internal: false };
  }
  const body = errorBody(
    'INTERNAL_ERROR',
    `Something went wrong in the ${where}; the request id is in X-Request-Id.`,
  );
  return { status: 500, body, headers: {}, internal: true };
}

/** The line an error that is none of ours leaves in the log (never its stack to the client). */
export function logInternal(logger: Logger, requestId: string | undefined, err: unknown): void {
  logger.error('unhandled error', {
    requestId,
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
  });
}

/** The one `onError` handler of every Hono app here (see errorAnswer). */
export function errorHandler(logger: Logger, where: string) {
  return (err: Error, c: Context): Response => {
    const a = errorAnswer(err, where);
    if (a.internal) logInternal(logger, c.get('requestId'), err);
    return c.json(a.body, a.status, a.headers);
  };
}

/** The success envelope. */
export function ok<T>(
  c: Context,
  data: T,
  status: ContentfulStatusCode = 200,
  headers?: Record<string, string>,
): Response {
  return c.json({ success: true as const, data }, status, headers);
}

/** Reads the body as JSON and validates it with `schema`, unknown fields refused (json-body.ts). */
export async function readJson<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return readStrictJson(c, schema);
}
