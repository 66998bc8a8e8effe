/** The shape of one documented operation; `operations.ts` lists them all. */
import type * as v from 'valibot';

/** A group of operations in the document and the reference page. */
export type Tag =
  | 'System'
  | 'Auth'
  | 'Notes'
  | 'Folders and search'
  | 'Files'
  | 'Agent'
  | 'Channels'
  | 'Plugins'
  | 'Security';

/** A query parameter or header: a JSON Schema and what it means. */
export interface Param {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
}

/** One route of the API as the OpenAPI document describes it. */
export interface Operation {
  /** operationId, and the method's name in the typed client (sdk/). */
  id: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template, e.g. `/api/v1/notes/{path}`. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  /** Answers without credentials. */
  public?: boolean;
  /** Takes the key in X-Service-Key in every auth mode (auth/verify, link, token). */
  keyOnly?: boolean;
  /** The JSON request body (the same valibot schema the route validates with). */
  body?: v.GenericSchema;
  /** An empty body is accepted too (toggles). */
  bodyOptional?: boolean;
  query?: Record<string, Param>;
  headers?: Record<string, Param>;
  /** Success status (default 200). */
  status?: number;
  /** The `data` of the success envelope. */
  data?: v.GenericSchema;
  /** An answer that is not the JSON envelope. */
  raw?: 'html' | 'javascript' | 'text' | 'openapi' | 'file' | 'frames' | 'none';
  /** The request body is raw bytes (an upload), not JSON. */
  rawBody?: boolean;
  /** Error statuses worth naming besides the ones every route may give (400, 401, 413, 429, 500). */
  errors?: number[];
  /** A retired route: it answers 410 GONE naming its replacement. */
  gone?: boolean;
}
