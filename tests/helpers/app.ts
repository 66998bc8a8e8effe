import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../adapters/http/app.ts';
import { fsNoteStore } from '../../adapters/store/fs-note-store.ts';
import { memoryNoteStore } from '../../adapters/store/memory-note-store.ts';
import { memoryStateStore } from '../../adapters/store/memory-state-store.ts';
import { createNoteService } from '../../core/notes/service.ts';
import type { NoteStore } from '../../core/ports.ts';
import { silentLogger } from './logger.ts';

/** An app over `store`, indexed and ready, with helpers to call it. */
export async function makeApp(store: NoteStore, opts: { maxBodyBytes?: number } = {}) {
  const clock = { now: () => Date.now() };
  const notes = createNoteService({ store, clock, state: memoryStateStore(), logger: silentLogger });
  await notes.load();
  const app = createApp({ notes, version: '0.0.0-test', clock, logger: silentLogger, ...opts });
  const send = requester(app);
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    send(method, path, { body, headers });
  return { app, notes, call };
}

/** Calls `app` in-process; JSON bodies in and out (a string body is sent as it is). */
export function requester(app: {
  request: (url: string, init: RequestInit) => Response | Promise<Response>;
}) {
  return requesterOver((path, init) => app.request(`http://127.0.0.1:3000${path}`, init));
}

/** The same over HTTP against a running server at `baseUrl`, `headers` (e.g. the key) on every request. */
export function httpRequester(baseUrl: string, headers: Record<string, string> = {}) {
  return requesterOver((path, init) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { ...headers, ...(init.headers as Record<string, string>) },
    }),
  );
}

function requesterOver(request: (path: string, init: RequestInit) => Response | Promise<Response>) {
  return async (
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    const res = await request(path, { method, headers, body });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}

/** An app over an in-memory vault seeded with `files`. */
export function memoryApp(files: Record<string, string> = {}) {
  return makeApp(memoryNoteStore({ files }));
}

/** A fresh temporary folder, removed by `cleanup`. */
export async function tempDir(prefix = 'quire-test-') {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** An app over a filesystem vault in a temporary folder. */
export async function fsApp(opts: { watch?: boolean } = {}) {
  const tmp = await tempDir();
  const vault = join(tmp.dir, 'vault');
  const store = fsNoteStore({ dir: vault, watch: opts.watch ?? false, debounceMs: 30 });
  const made = await makeApp(store);
  const stopWatch = opts.watch
    ? await store.watch?.((changes) => void made.notes.applyExternalChanges(changes))
    : undefined;
  const cleanup = async () => {
    await stopWatch?.();
    await tmp.cleanup();
  };
  return { ...made, store, vault, root: tmp.dir, cleanup };
}
