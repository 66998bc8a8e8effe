import * as v from 'valibot';

/** Body of `POST /api/v1/files/:path/move`. */
export const MoveFileBody = v.object({
  path: v.string('path (the new path) must be a string.'),
});
