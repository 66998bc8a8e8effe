/**
 * The workspace's calls to the active profile's server (direct or through the relay path),
 * made with the typed client (sdk/) over the client's own transport (time-outs, ApiFailure).
 */
import { type ApiRequest, createQuireClient, queryString } from '../../../sdk/index.ts';
import { callJson } from './api.ts';
import { filesApi } from './files-api.ts';
import type { Profile } from './profiles.ts';

// The server's own shapes (type-only imports: nothing of the core is bundled).
export type { ChatReply } from '../../../core/agent/types.ts';
export type { FolderNodeWithFiles as FolderNode } from '../../../core/files/tree.ts';
export type { NoteSummary } from '../../../core/notes/note-index.ts';
export type { Note } from '../../../core/notes/service.ts';
export type { SearchHit } from '../../../core/search/types.ts';

/** A note as the workspace lists it. */
export interface NoteEntry {
  path: string;
  title: string;
  tags: string[];
  aliases: string[];
}

/** A note path in a URL: slashes encoded too (the server decodes once). */
export const encodePath = (path: string) => encodeURIComponent(path);

/** The API of one profile's server. Every call carries the profile's key in `X-Service-Key`. */
export function workspaceApi(profile: Profile, fetchFn: typeof fetch = (...a) => fetch(...a)) {
  const api = createQuireClient(
    async <T>(req: ApiRequest) =>
      (
        await callJson<T>(fetchFn, `${profile.serverUrl}${req.path}${queryString(req.query)}`, {
          method: req.method,
          body: req.body,
          headers: req.headers,
          key: profile.apiKey,
        })
      ).data,
  );
  return {
    /**
     * Every note as the workspace needs it: path, title, tags and aliases, one answer
     * (`?fields=path,title,tags,aliases`: a tenth of the full summaries, which carry every link and
     * backlink; revalidated with its ETag).
     */
    listNotes: async (): Promise<NoteEntry[]> =>
      (await api.notes.page({ limit: null, fields: ['title', 'tags', 'aliases'] })).items.map((n) => ({
        path: n.path,
        title: n.title,
        tags: n.tags,
        aliases: n.aliases ?? [],
      })),
    tree: () => api.folders.tree(),
    read: (path: string) => api.notes.get(path),
    create: (path: string, content: string) => api.notes.create({ path, content }),
    /** Saves text made from version `checksum`: merged on the server when the note changed since. */
    update: (path: string, content: string, checksum: string) =>
      api.notes.update(path, { content, base: checksum }),
    /** Replaces the note only if it is still version `checksum` (412 otherwise): no merge. */
    replace: (path: string, content: string, checksum: string) =>
      api.notes.update(path, { content }, checksum),
    move: (path: string, to: string, checksum: string) =>
      api.notes.move(path, { path: to, updateLinks: true }, checksum),
    remove: (path: string, checksum: string) => api.notes.remove(path, checksum),
    search: (q: string) => api.search(q, 30),
    /** A single-use ticket to edit `path` live (live-socket.ts opens the WebSocket with it). */
    liveTicket: (path: string) => api.live.ticket(path),
    tags: () => api.tags(),
    chat: (message: string, notePath?: string) => api.agent.chat({ message, notePath, channel: 'web' }),
    /** A note's kept versions: list, get, diff, restore. */
    history: api.history,
    /** Deleted notes and files: list, restore, delete for good. */
    trash: api.trash,
    /** Attachments: blobs fetched with the key, uploads, the attachment folder. */
    files: filesApi(profile, fetchFn),
  };
}

export type WorkspaceApi = ReturnType<typeof workspaceApi>;
