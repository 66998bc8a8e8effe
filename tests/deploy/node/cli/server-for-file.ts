import { afterAll, beforeAll } from 'vitest';
import { type LiveServer, liveServer } from '../../../helpers/live-server.ts';

/**
 * A real server (open port) shared by one file's tests: started before them, stopped after them.
 * Call the answer inside a test to reach it.
 */
export function openPortServerForFile(): () => LiveServer {
  let s: LiveServer | undefined;
  beforeAll(async () => {
    s = await liveServer({ PAIRING_MODE: 'open-port' });
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });
  return () => s!;
}
