import * as v from 'valibot';

/** `POST /api/v1/live/tickets`: the note to join live. */
export const LiveTicketBody = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1), v.maxLength(1024)),
});

/** The answer: a single-use ticket for the WebSocket at `/api/v1/live`, and what it allows. */
export const LiveTicketAnswer = v.object({
  ticket: v.string(),
  path: v.string(),
  readOnly: v.boolean(),
  name: v.string(),
  expiresIn: v.number(),
});

/** `POST /api/v1/live/sessions`: a ticket to join over plain requests. */
export const LiveSessionBody = v.strictObject({
  ticket: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
});
