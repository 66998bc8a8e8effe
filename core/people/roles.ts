/**
 * A person's shares as one scope (core/auth/scope.ts), so the scoped views every surface
 * already asks decide for people too: reads inside the union of their folders, writes inside the
 * folders shared as editor or manager, sharing inside the folders shared as manager.
 */
import { type Capability, inScope, type KeyScope } from '../auth/scope.ts';
import type { PersonRecord, Share } from './types.ts';

const READ: Capability[] = ['notes:read', 'files:read', 'agent'];
const WRITE: Capability[] = ['notes:write', 'files:write'];

/** Sees nothing: every path is excluded (a member with no share). */
const NOTHING: KeyScope = { capabilities: ['notes:read', 'files:read'], folders: [], exclude: [''] };

/** True when folder `inner` ('' the vault) lies inside `outer`. */
export const folderWithin = (inner: string, outer: string): boolean => inner.startsWith(outer);

/**
 * The scope of `person` with `shares` (theirs only); undefined: full access (an owner). A
 * disabled person is refused before this is asked.
 */
export function personScope(person: PersonRecord, shares: Share[]): KeyScope | undefined {
  if (person.role === 'owner') return undefined;
  if (shares.length === 0) return NOTHING;
  const whole = shares.some((s) => s.folder === '');
  const writing = shares.filter((s) => s.role !== 'viewer');
  const capabilities = writing.length > 0 ? [...READ, ...WRITE] : [...READ];
  const scope: KeyScope = { capabilities };
  if (!whole) scope.folders = dedupe(shares.map((s) => s.folder));
  if (writing.length > 0 && !writing.some((s) => s.folder === '')) {
    const w = dedupe(writing.map((s) => s.folder));
    // Writes reach every folder it reads: no separate write list is needed.
    const readsOnlyWhereItWrites = !whole && shares.every((s) => w.some((f) => folderWithin(s.folder, f)));
    if (!readsOnlyWhereItWrites) scope.writeFolders = w;
  }
  return scope;
}

/** True when a person with `shares` may share `folder` (a manager of it or of a folder above it). */
export function managesFolder(person: PersonRecord, shares: Share[], folder: string): boolean {
  if (person.role === 'owner') return true;
  return shares.some((s) => s.role === 'manager' && folderWithin(folder, s.folder));
}

/** True when `path` is inside `scope`'s folders (a convenience for tests and routes). */
export const seesPath = (scope: KeyScope | undefined, path: string) => inScope(scope, path);

function dedupe(folders: string[]): string[] {
  const sorted = [...new Set(folders)].sort();
  // A folder inside another of the list adds nothing.
  return sorted.filter((f) => !sorted.some((o) => o !== f && folderWithin(f, o)));
}
