/** An attachment as the API describes it, and its ETag (a leaf: types and pure helpers only). */
import type { ByteRange, FileInfo } from '../ports.ts';
import { contentTypeOf } from './content-types.ts';

/** An attachment as the API describes it. */
export interface FileMeta {
  path: string;
  size: number;
  /** Last modification, ISO 8601 UTC. */
  updatedAt: string;
  contentType: string;
  /** Strong validator from size and mtime (hashing every large file on each GET would not scale). */
  etag: string;
}

/** What a GET answers: the whole file, one range of it, or nothing when the range cannot be met. */
export type FileRead =
  | { kind: 'full'; meta: FileMeta; body: ReadableStream<Uint8Array> }
  | { kind: 'partial'; meta: FileMeta; range: ByteRange; body: ReadableStream<Uint8Array> }
  | { kind: 'unsatisfiable'; meta: FileMeta };

export const etagOf = (info: FileInfo) =>
  `"f-${info.size.toString(36)}-${Math.round(info.mtimeMs * 1000).toString(36)}"`;

/** True when an `If-Match` / `If-None-Match` list names `etag` (or is `*` and the file exists). */
export function etagMatches(header: string, etag: string | null): boolean {
  if (etag === null) return false;
  return header.split(',').some((t) => {
    const s = t.trim();
    return s === '*' || s === etag || s === `W/${etag}`;
  });
}

export const fileMeta = (info: FileInfo): FileMeta => ({
  path: info.path,
  size: info.size,
  updatedAt: new Date(info.mtimeMs).toISOString(),
  contentType: contentTypeOf(info.path),
  etag: etagOf(info),
});
