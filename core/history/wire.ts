/**
 * History items as the API answers them (REST and MCP): times in ISO 8601 with milliseconds, like
 * every other timestamp the API gives; the history keeps epoch milliseconds inside.
 */
import type { TrashItem, VersionItem } from './state.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A version (or a version with its content) with `at` as ISO 8601. */
export const versionOut = <T extends Pick<VersionItem, 'at'>>(v: T): Omit<T, 'at'> & { at: string } => ({
  ...v,
  at: iso(v.at),
});

/** A trash item with `deletedAt` as ISO 8601. */
export const trashOut = <T extends Pick<TrashItem, 'deletedAt'>>(
  t: T,
): Omit<T, 'deletedAt'> & { deletedAt: string } => ({ ...t, deletedAt: iso(t.deletedAt) });
