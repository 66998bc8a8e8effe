/**
 * The OpenAPI 3.1 document, generated from the operation table and the valibot schemas (request
 * bodies from the core, answers from `responses*.ts`) with @valibot/to-json-schema.
 */
import { toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ChatBody } from '../../../core/agent/schemas.ts';
import { CreateChannelBody, ToggleChannelBody, WebMessageBody } from '../../../core/channels/schemas.ts';
import { InstallPluginBody, PluginConfigBody, TogglePluginBody } from '../../../core/plugins/schemas.ts';
import { CreateNoteBody, MoveNoteBody, UpdateNoteBody } from '../../../core/schemas.ts';
import { STATUS } from '../../../http-kit/envelope.ts';
import { KeyName } from '../routes/auth.ts';
import { OAUTH_PATHS } from './oauth-paths.ts';
import type { Operation } from './operation.ts';
import { OPERATIONS } from './operations.ts';
import * as r from './responses.ts';
import * as f from './responses-features.ts';

type Json = Record<string, unknown>;

/** Schemas named in `components.schemas` (referenced wherever they occur). */
const NAMED: Record<string, v.GenericSchema> = {
  NoteSummary: r.NoteSummary,
  Note: r.Note,
  NoteLink: r.NoteLink,
  FolderNode: r.FolderNode,
  SearchHit: r.SearchHit,
  SetupPayload: r.SetupPayload,
  KeyInfo: r.KeyInfo,
  ChatReply: f.ChatReply,
  Channel: f.Channel,
  Plugin: f.Plugin,
  CreateNoteBody,
  UpdateNoteBody,
  MoveNoteBody,
  MintKeyBody: KeyName,
  ChatBody,
  CreateChannelBody,
  ToggleChannelBody,
  WebMessageBody,
  InstallPluginBody,
  TogglePluginBody,
  PluginConfigBody,
};

const CONVERT = { target: 'draft-2020-12', errorMode: 'ignore' } as const;

/**
 * Rewrites `#/$defs/X` to `#/components/schemas/X`, drops the per-schema dialect and defs, and
 * writes what readers handle best: `type: [T, "null"]` for a nullable T, no `propertyNames` of
 * plain strings (JSON keys are strings).
 */
function tidy(schema: unknown): Json {
  const text = JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/');
  const {
    $schema: _s,
    $defs: _d,
    ...rest
  } = JSON.parse(text, (_key, value) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
    const { propertyNames, anyOf, ...other } = value as Json;
    const out: Json = { ...other };
    if (typeof out.const === 'string' || typeof out.const === 'boolean') out.type ??= typeof out.const;
    if (out.additionalProperties && Object.keys(out.additionalProperties as Json).length === 0)
      out.additionalProperties = true;
    if (propertyNames && JSON.stringify(propertyNames) !== '{"type":"string"}')
      out.propertyNames = propertyNames;
    const variants = anyOf as Json[] | undefined;
    const nullable =
      variants?.length === 2 && variants[1]?.type === 'null' && Object.keys(variants[1]).length === 1;
    if (nullable && typeof variants[0]?.type === 'string')
      return { ...out, ...variants[0], type: [variants[0].type, 'null'] };
    if (variants) out.anyOf = variants;
    return out;
  }) as Json;
  return rest;
}

const schemaOf = (s: v.GenericSchema): Json => {
  const name = Object.entries(NAMED).find(([, n]) => n === s)?.[0];
  return name
    ? { $ref: `#/components/schemas/${name}` }
    : tidy(toJsonSchema(s, { ...CONVERT, definitions: NAMED }));
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid JSON, body, path or query (INVALID_JSON, VALIDATION_ERROR naming the field, INVALID_PATH, FRONTMATTER_TOO_LARGE).',
  401: 'No or bad credentials (UNAUTHORIZED, INVALID_API_KEY, INVALID_TOKEN).',
  403: 'Refused (FORBIDDEN): the key lacks the capability the route needs (the message names it, e.g. `missing capability notes:write`), or the path is outside its folders, or the server refuses it.',
  404: 'Not found (NOT_FOUND, NOTE_NOT_FOUND, FOLDER_NOT_FOUND, FILE_NOT_FOUND, CHANNEL_NOT_FOUND, PLUGIN_NOT_FOUND).',
  409: 'Conflict (NOTE_ALREADY_EXISTS, FILE_ALREADY_EXISTS, CONFLICT).',
  410: 'Retired (GONE); the message names the replacement.',
  412: 'If-Match does not match (PRECONDITION_FAILED).',
  413: 'Body over the limit (PAYLOAD_TOO_LARGE).',
  416: 'The Range cannot be met (RANGE_NOT_SATISFIABLE); Content-Range gives the size.',
  429: 'Too many attempts (RATE_LIMITED); see Retry-After.',
  500: 'Unexpected (INTERNAL_ERROR); the request id is in X-Request-Id.',
  502: 'An upstream failed (AGENT_PROVIDER_ERROR, PLUGIN_ERROR, EMBEDDINGS_ERROR, SSO_PROVIDER_ERROR).',
  503: 'Not available (AGENT_DISABLED, NOT_READY).',
};

const envelope = (data: Json): Json => ({
  type: 'object',
  required: ['success', 'data'],
  properties: { success: { const: true }, data },
});

const json = (schema: Json) => ({ 'application/json': { schema } });

/** The responses object of one operation. */
function responses(op: Operation): Json {
  const out: Json = {};
  const status = String(op.status ?? 200);
  if (op.gone) {
    out['401'] = { $ref: '#/components/responses/Error401' };
    out['410'] = { $ref: '#/components/responses/Error410' };
    return out;
  }
  if (op.raw === 'html')
    out[status] = { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } };
  else if (op.raw === 'javascript')
    out[status] = {
      description: 'The script.',
      content: { 'text/javascript': { schema: { type: 'string' } } },
    };
  else if (op.raw === 'text')
    out[status] = {
      description: 'The challenge.',
      content: { 'text/plain': { schema: { type: 'string' } } },
    };
  else if (op.raw === 'file')
    out[status] = {
      description: 'The bytes (or one range of them: 206 with Content-Range). Also answers HEAD.',
      content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    };
  else if (op.raw === 'frames')
    out[status] = {
      description:
        'The frames after `after` (empty when none came within the wait): see core/live/poll-wire.ts.',
      content: {
        'application/octet-stream': {
          schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        },
      },
    };
  else if (op.raw === 'none') out[status] = { description: op.summary };
  else if (op.raw === 'openapi')
    out[status] = {
      description: 'The document.',
      content: json({ type: 'object', required: ['openapi', 'paths'] }),
    };
  else out[status] = { description: op.summary, content: json(envelope(op.data ? schemaOf(op.data) : {})) };
  if (op.raw === 'file')
    out['206'] = {
      description: 'One range of the bytes; Content-Range says which.',
      content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    };
  // An upload answers 201 when it created the file and 200 when it replaced one.
  if (op.rawBody && op.raw !== 'none')
    out['200'] = { description: 'Replaced.', content: json(envelope(op.data ? schemaOf(op.data) : {})) };
  if (op.headers?.['If-None-Match']) out['304'] = { description: 'Not modified.' };
  const codes = new Set([...(op.errors ?? []), 500]);
  if (op.body || op.rawBody) codes.add(400).add(413);
  if (op.path.includes('{path}')) codes.add(400);
  if (!op.public || op.keyOnly) codes.add(401);
  // A scoped key without the route's capability: 403 naming it.
  if (!op.public) codes.add(403);
  if (op.keyOnly || op.public) codes.add(429);
  for (const c of [...codes].sort()) out[String(c)] = { $ref: `#/components/responses/Error${c}` };
  return out;
}

const PATH_PARAMS: Record<string, string> = {
  path: 'A URL-encoded note, folder or file path, e.g. projects%2Fplan.md (unencoded slashes work too).',
  id: 'The id of the key, channel or plugin.',
  provider: 'telegram or whatsapp.',
  route: "The rest of the plugin route's path; may contain slashes.",
};

/** The operation object of one route. */
function operation(op: Operation): Json {
  const params = [
    ...[...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      description: PATH_PARAMS[name!] ?? name,
      schema: { type: 'string' },
    })),
    ...Object.entries(op.query ?? {}).map(([name, p]) => ({ name, in: 'query', ...p })),
    ...Object.entries(op.headers ?? {}).map(([name, p]) => ({ name, in: 'header', ...p })),
  ];
  if (op.keyOnly && op.public)
    params.push({
      name: 'X-Service-Key',
      in: 'header',
      required: true,
      description: 'The key to check.',
      schema: { type: 'string' },
    });
  const out: Json = { operationId: op.id, tags: [op.tag], summary: op.summary };
  if (op.description) out.description = op.description;
  if (op.gone) out.deprecated = true;
  if (params.length) out.parameters = params;
  if (op.public) out.security = [];
  else if (op.keyOnly) out.security = [{ apiKey: [] }];
  if (op.body) out.requestBody = { required: !op.bodyOptional, content: json(schemaOf(op.body)) };
  if (op.rawBody)
    out.requestBody = {
      required: true,
      content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    };
  out.responses = responses(op);
  return out;
}

/** The whole document; `serverUrl` is where this server is reached (the `servers` entry). */
export function openApiDocument(opts: { version: string; serverUrl?: string }): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operation(op);
  }
  const errorResponses: Json = {};
  for (const [code, description] of Object.entries(ERROR_TEXT))
    errorResponses[`Error${code}`] = { description, content: json({ $ref: '#/components/schemas/Error' }) };
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Quire API',
      version: opts.version,
      description:
        'A self-hosted markdown note server. Every answer is JSON in an envelope: `{success: true, data}` or `{success: false, error: {code, message, details?}}`. Through a relay the same paths live under `<relay>/r/<serverId>`.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: opts.serverUrl ? [{ url: opts.serverUrl }] : [],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: [...new Set([...OPERATIONS.map((o) => o.tag), 'OAuth'])].map((name) => ({ name })),
    paths: { ...paths, ...OAUTH_PATHS },
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Key',
          description: 'An API key (quire_sk_...), in api-key mode.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A JWT, in jwt mode (POST /api/v1/auth/token).',
        },
      },
      schemas: {
        ...Object.fromEntries(Object.entries(toJsonSchemaDefs(NAMED, CONVERT)).map(([k, s]) => [k, tidy(s)])),
        Error: {
          type: 'object',
          required: ['success', 'error'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(STATUS) },
                message: { type: 'string' },
                details: {},
              },
            },
          },
        },
      },
      responses: errorResponses,
    },
  };
}
