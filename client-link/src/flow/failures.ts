/** The link flow's failure codes, and how a failed call becomes one. */
import { ApiFailure } from './api.ts';
import type { StepId } from './steps.ts';

export type FailureCode =
  | 'MISSING_PARAMS'
  | 'MALFORMED_PARAMS'
  | 'BAD_URL'
  | 'RELAY_UNREACHABLE'
  | 'CODE_REJECTED'
  | 'SERVER_UNREACHABLE'
  | 'SERVER_OFFLINE'
  | 'KEY_REJECTED'
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'NOT_QUIRE'
  | 'LINK_FAILED'
  | 'STORAGE_FAILED';

/** Why the flow stopped, and what the manual form may be prefilled with (never a secret). */
export interface LinkFailure {
  step: StepId;
  code: FailureCode;
  message: string;
  prefill: { serverUrl: string };
}

/** A step's failure: its code and the sentence for the page. */
export class Stop extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** Maps a failed call to a code and a sentence for the step it happened in. */
export function explain(err: unknown, where: 'relay' | 'server'): Stop {
  if (err instanceof Stop) return err;
  if (!(err instanceof ApiFailure)) return new Stop('NOT_QUIRE', 'Something unexpected went wrong.');
  const relay = where === 'relay';
  if (err.kind === 'UNREACHABLE')
    return new Stop(relay ? 'RELAY_UNREACHABLE' : 'SERVER_UNREACHABLE', err.message);
  if (err.kind === 'TIMEOUT') return new Stop('TIMEOUT', err.message);
  if (err.status === 429) return new Stop('RATE_LIMITED', 'Too many attempts: wait a minute and try again.');
  if (err.status === 503 && (err.code === 'SERVER_OFFLINE' || relay))
    return new Stop('SERVER_OFFLINE', 'The relay cannot reach your server right now: is it running?');
  if (err.status === 504) return new Stop('TIMEOUT', 'The server did not answer through the relay in time.');
  if (relay && (err.status === 401 || err.status === 404 || err.status === 400))
    return new Stop(
      'CODE_REJECTED',
      'The pairing code was not accepted: it may be mistyped, expired or already used. Ask the server for a new link, or enter the address and key below.',
    );
  if (!relay && err.status === 401)
    return new Stop(
      'KEY_REJECTED',
      'The server did not accept this API key. Check that you copied the whole key.',
    );
  if (err.kind === 'NOT_QUIRE' || err.status === 404)
    return new Stop('NOT_QUIRE', `${err.message} Check the server address.`);
  return new Stop(relay ? 'RELAY_UNREACHABLE' : 'LINK_FAILED', err.message);
}
