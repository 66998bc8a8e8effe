/**
 * The workspace's calls to the files API (`/api/v1/files`): bytes come back as Blobs fetched with
 * the key in `X-Service-Key`, so a key never goes into a URL (an <img src> could not carry it).
 */
import { ApiFailure, callJson } from './api.ts';
import type { Profile } from './profiles.ts';

/** A file path in a URL: every segment encoded, like a note path. */
const fileUrl = (profile: Profile, path: string) =>
  `${profile.serverUrl}/api/v1/files/${encodeURIComponent(path)}`;

/** An attachment's metadata, as PUT answers it. */
export interface FileMeta {
  path: string;
  size: number;
  contentType: string;
  etag: string;
  updatedAt: string;
}

/** The files API of one profile's server. */
export function filesApi(profile: Profile, fetchFn: typeof fetch = (...a) => fetch(...a)) {
  return {
    /** The bytes of `path` as a Blob of its content type. */
    async blob(path: string): Promise<Blob> {
      let res: Response;
      try {
        res = await fetchFn(fileUrl(profile, path), {
          headers: { 'x-service-key': profile.apiKey },
          referrerPolicy: 'no-referrer',
        });
      } catch {
        throw new ApiFailure('UNREACHABLE', `Could not fetch ${path}.`);
      }
      if (!res.ok) throw new ApiFailure('HTTP', `Could not load ${path} (${res.status}).`, res.status);
      return res.blob();
    },
    /** Uploads `blob` to `path`, never replacing a file (`If-None-Match: *`). */
    async upload(path: string, blob: Blob): Promise<FileMeta> {
      const res = await fetchFn(fileUrl(profile, path), {
        method: 'PUT',
        headers: {
          'x-service-key': profile.apiKey,
          'if-none-match': '*',
          'content-type': blob.type || 'application/octet-stream',
        },
        body: blob,
        referrerPolicy: 'no-referrer',
      });
      const json = (await res.json().catch(() => null)) as {
        data?: FileMeta;
        error?: { message?: string };
      } | null;
      if (!res.ok || !json?.data) {
        throw new ApiFailure('HTTP', json?.error?.message ?? `Upload failed (${res.status}).`, res.status);
      }
      return json.data;
    },
    /** Where a new attachment `name` of `note` goes (the vault's attachmentFolderPath) and a free path there. */
    async attachmentPath(name: string, note: string): Promise<{ folder: string; path: string }> {
      const q = `?name=${encodeURIComponent(name)}&note=${encodeURIComponent(note)}`;
      return (
        await callJson<{ folder: string; path: string }>(
          fetchFn,
          `${profile.serverUrl}/api/v1/files/attachment-path${q}`,
          {
            key: profile.apiKey,
          },
        )
      ).data;
    },
  };
}

export type FilesApi = ReturnType<typeof filesApi>;
