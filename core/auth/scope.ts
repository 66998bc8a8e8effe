/**
 * What a credential may do: capabilities and folder scopes. A key or token without a
 * scope has full access (the first key, device keys, and every key minted before scopes existed).
 *
 * This file is the one definition the enforcement (routes, MCP, agent, fast paths) and the OAuth
 * grants share; the checks that use it are decided in the core, never restated by an adapter.
 */
import * as v from 'valibot';

/** Every capability a key may carry. `admin` covers keys, plugins, channels, security and setup. */
export const CAPABILITIES = [
  'notes:read',
  'notes:write',
  'files:read',
  'files:write',
  'agent',
  'admin',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Capabilities of a read-only key (`quire keys mint --read-only`, the OAuth consent default). */
export const READ_ONLY: readonly Capability[] = ['notes:read', 'files:read'];

/** A vault-relative folder prefix: no leading slash, ends with `/`, no `..` or empty segment. */
const FolderPrefixSchema = v.pipe(
  v.string(),
  v.maxLength(1024),
  v.transform((s) => (s.endsWith('/') ? s : `${s}/`)),
  v.check(
    (s) =>
      !s.startsWith('/') &&
      s
        .split('/')
        .slice(0, -1)
        .every((seg) => seg !== '' && seg !== '.' && seg !== '..'),
    'a folder is a vault-relative path such as "Work/" (no leading "/", no "." or ".." segments)',
  ),
);

/** The `scope` of `POST /api/v1/auth/keys` and of a stored key. */
export const KeyScopeSchema = v.strictObject({
  capabilities: v.pipe(v.array(v.picklist(CAPABILITIES)), v.minLength(1), v.maxLength(CAPABILITIES.length)),
  /** Include prefixes; absent or empty: the whole vault. */
  folders: v.optional(v.pipe(v.array(FolderPrefixSchema), v.maxLength(64))),
  /** Exclude prefixes, applied after `folders`. */
  exclude: v.optional(v.pipe(v.array(FolderPrefixSchema), v.maxLength(64))),
  /**
   * Write prefixes: where the write capabilities apply, inside what `folders` shows (a person
   * with a viewer share on one folder and an editor share on another). Absent: wherever it reads.
   */
  writeFolders: v.optional(v.pipe(v.array(FolderPrefixSchema), v.maxLength(64))),
});
export type KeyScope = v.InferOutput<typeof KeyScopeSchema>;

/** Whether a credential with `scope` (undefined: full access) holds `cap`. */
export function hasCapability(scope: KeyScope | undefined, cap: Capability): boolean {
  return scope === undefined || scope.capabilities.includes(cap);
}

let foldNames = false;

/**
 * Folder scopes compare names the way the vault's file system does: folded (case, and Unicode
 * normalization) when it compares names without case (`NoteStore.foldsCase`), so `Work/PRIVATE/`
 * is excluded by `exclude: ["Work/private/"]` there. Set once at start, by `createCore`.
 */
export function setScopeFolding(on: boolean): void {
  foldNames = on;
}

const fold = (s: string) => s.normalize('NFC').toLowerCase();

/** Whether a vault-relative path (note, file or folder) is inside `scope`'s folders. */
export function inScope(scope: KeyScope | undefined, path: string): boolean {
  if (scope === undefined) return true;
  const raw = path.replace(/^\/+/, '');
  // A path that climbs (`Work/../Private`) is never inside: nothing may dodge a prefix test.
  if (raw.split('/').some((seg) => seg === '..' || seg === '.')) return false;
  const p = foldNames ? fold(raw) : raw;
  const under = (given: string) => {
    const prefix = foldNames ? fold(given) : given;
    return p.startsWith(prefix) || `${p}/` === prefix;
  };
  if (scope.folders && scope.folders.length > 0 && !scope.folders.some(under)) return false;
  if (scope.exclude?.some(under)) return false;
  return true;
}

/**
 * Whether `scope` may write at `path`: inside its folders and, when it names write folders,
 * inside one of those too (the excludes apply to both).
 */
export function inWriteScope(scope: KeyScope | undefined, path: string): boolean {
  if (!inScope(scope, path)) return false;
  if (scope?.writeFolders === undefined) return true;
  return (
    inScope({ capabilities: scope.capabilities, folders: scope.writeFolders }, path) &&
    scope.writeFolders.length > 0
  );
}

/** True when `scope` limits nothing (every capability, whole vault). */
export function isFullAccess(scope: KeyScope | undefined): boolean {
  return (
    scope === undefined ||
    (CAPABILITIES.every((c) => scope.capabilities.includes(c)) &&
      !(scope.folders && scope.folders.length > 0) &&
      !(scope.exclude && scope.exclude.length > 0) &&
      scope.writeFolders === undefined)
  );
}
