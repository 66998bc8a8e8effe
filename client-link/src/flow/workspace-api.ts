/** The workspace's calls to the active profile's server (direct or through the relay path). */
import type { ChatReply } from '../../../core/agent/types.ts';
import type { NoteSummary } from '../../../core/note-index.ts';
import type { FolderNode, Note } from '../../../core/notes.ts';
import type { SearchHit } from '../../../core/search.ts';
import { type Answer, callJson } from './api.ts';
import type { Profile } from './profiles.ts';

// The server's own shapes (type-only imports: nothing of the core is bundled).
export type { ChatReply } from '../../../core/agent/types.ts';
export type { NoteSummary } from '../../../core/note-index.ts';
export type { FolderNode, Note } from '../../../core/notes.ts';
export type { SearchHit } from '../../../core/search.ts';

/** A note path in a URL: slashes encoded too (the server decodes once). */
export const encodePath = (path: string) => encodeURIComponent(path);

/** The API of one profile's server. Every call carries the profile's key in `X-Service-Key`. */
export function workspaceApi(profile: Profile, fetchFn: typeof fetch = (...a) => fetch(...a)) {
  const base = `${profile.serverUrl}/api/v1`;
  const call = <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    callJson<T>(fetchFn, `${base}${path}`, { method, body, headers, key: profile.apiKey });
  const data = async <T>(p: Promise<Answer<T>>) => (await p).data;
  return {
    listNotes: () => data(call<NoteSummary[]>('GET', '/notes')),
    tree: () => data(call<FolderNode>('GET', '/folders/tree')),
    read: (path: string) => data(call<Note>('GET', `/notes/${encodePath(path)}`)),
    create: (path: string, content: string) => data(call<Note>('POST', '/notes', { path, content })),
    /** Saves only if the note still has `checksum` (412 PRECONDITION_FAILED otherwise). */
    update: (path: string, content: string, checksum: string) =>
      data(call<Note>('PUT', `/notes/${encodePath(path)}`, { content }, { 'if-match': `"${checksum}"` })),
    move: (path: string, to: string, checksum: string) =>
      data(
        call<Note>(
          'POST',
          `/notes/${encodePath(path)}/move`,
          { path: to, updateLinks: true },
          {
            'if-match': `"${checksum}"`,
          },
        ),
      ),
    remove: (path: string, checksum: string) =>
      data(
        call<{ deleted: string }>('DELETE', `/notes/${encodePath(path)}`, undefined, {
          'if-match': `"${checksum}"`,
        }),
      ),
    search: (q: string) => data(call<SearchHit[]>('GET', `/search?q=${encodeURIComponent(q)}&limit=30`)),
    chat: (message: string, notePath?: string) =>
      data(call<ChatReply>('POST', '/agent/chat', { message, notePath, channel: 'web' })),
  };
}

export type WorkspaceApi = ReturnType<typeof workspaceApi>;
