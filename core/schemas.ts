import * as v from 'valibot';
import { DomainError } from './errors.ts';
import { parseJsonBody } from './json.ts';

/**
 * Parses `text` as JSON and checks it with `schema`: 400 INVALID_JSON, or VALIDATION_ERROR naming
 * the first bad field (every issue in `details.issues`). The one body check of every adapter.
 */
export function parseBody<S extends v.GenericSchema>(schema: S, text: string): v.InferOutput<S> {
  return checkBody(schema, parseJsonBody(text));
}

/** `data` checked with `schema`: VALIDATION_ERROR naming the first bad field (all in `details.issues`). */
export function checkBody<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, data);
  if (!r.success) {
    const issues = r.issues.map((i) => ({ field: v.getDotPath(i) ?? '(body)', message: i.message }));
    const first = issues[0]!;
    throw new DomainError('VALIDATION_ERROR', `Invalid ${first.field}: ${first.message}`, { issues });
  }
  return r.output;
}

const frontmatter = v.optional(v.record(v.string(), v.unknown(), 'frontmatter must be an object.'));

/** Body of `POST /api/v1/notes`. */
export const CreateNoteBody = v.object({
  path: v.string('path must be a string.'),
  content: v.string('content must be a string.'),
  frontmatter,
});

/** Body of `PUT /api/v1/notes/:path`. */
export const UpdateNoteBody = v.object({
  content: v.string('content must be a string.'),
  frontmatter,
  /**
   * The checksum of the version this text was made from: when the note changed since, the write is
   * merged with those changes (docs/reference/merge.md). `If-Match` stays a strict precondition.
   */
  base: v.optional(
    v.pipe(
      v.string('base must be a checksum string.'),
      v.maxLength(128, 'base is not a checksum.'),
      v.description(
        'The checksum of the version this content was made from. When the note changed since, the write is merged with those changes (the answer carries `merge`); overlapping edits keep the newer text in the note and this content whole in a conflict copy. If-Match stays a strict precondition.',
      ),
    ),
  ),
});

/** Body of `POST /api/v1/notes/:path/move`. */
export const MoveNoteBody = v.object({
  path: v.string('path (the new path) must be a string.'),
  updateLinks: v.optional(v.boolean('updateLinks must be true or false.')),
});
