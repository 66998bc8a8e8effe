import * as v from 'valibot';

/** Body of `POST /api/v1/files/:path/move`. */
export const MoveFileBody = v.object({
  path: v.string('path (the new path) must be a string.'),
  /** Rewrite the embeds and links to the file in every note (default false). */
  updateLinks: v.optional(v.boolean('updateLinks must be true or false.')),
});
