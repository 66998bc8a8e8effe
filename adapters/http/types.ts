import type { NoteService } from '../../core/notes.ts';
import type { Authenticator, Clock, Logger, Principal } from '../../core/ports.ts';

/** Variables set on the Hono context by the app's middleware. */
export type AppEnv = {
  Variables: {
    requestId: string;
    principal?: Principal;
  };
};

/** Everything `createApp` needs. */
export interface AppDeps {
  notes: NoteService;
  version: string;
  clock: Clock;
  logger: Logger;
  /** Checks protected routes; absent means every route is open (tests, embedding). */
  auth?: Authenticator;
  /** Request body limit in bytes (default 10 MiB). */
  maxBodyBytes?: number;
  /** Identifies this process in list ETags (default: random). */
  instanceId?: string;
}
