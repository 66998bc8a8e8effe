import * as v from 'valibot';

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
});

/** Body of `POST /api/v1/notes/:path/move`. */
export const MoveNoteBody = v.object({
  path: v.string('path (the new path) must be a string.'),
  updateLinks: v.optional(v.boolean('updateLinks must be true or false.')),
});
