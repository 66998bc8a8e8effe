import { DomainError } from './errors.ts';

const MAX_PATH_BYTES = 1024;
const MAX_SEGMENT_BYTES = 255;
const encoder = new TextEncoder();

function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/**
 * Checks a vault-relative POSIX path (a note or a folder) and returns it unchanged.
 * Throws INVALID_PATH for anything that could leave the vault or confuse a filesystem.
 */
function checkRelativePath(path: unknown, what: string): string {
  if (typeof path !== 'string' || path.length === 0) {
    throw new DomainError('INVALID_PATH', `The ${what} path must be a non-empty string.`);
  }
  if (path.startsWith('/'))
    throw new DomainError('INVALID_PATH', `The ${what} path must be relative to the vault.`);
  if (path.includes('\\'))
    throw new DomainError('INVALID_PATH', `The ${what} path must not contain a backslash.`);
  if (/[\u0000-\u001f\u007f]/.test(path)) {
    throw new DomainError('INVALID_PATH', `The ${what} path must not contain control characters.`);
  }
  if (byteLength(path) > MAX_PATH_BYTES) {
    throw new DomainError('INVALID_PATH', `The ${what} path is longer than ${MAX_PATH_BYTES} bytes.`);
  }
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new DomainError('INVALID_PATH', `The ${what} path must not have empty, "." or ".." segments.`);
    }
    if (segment.startsWith('.')) {
      throw new DomainError(
        'INVALID_PATH',
        `The ${what} path must not have hidden segments (starting with ".").`,
      );
    }
    if (byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw new DomainError(
        'INVALID_PATH',
        `A segment of the ${what} path is longer than ${MAX_SEGMENT_BYTES} bytes.`,
      );
    }
  }
  return path;
}

/** Validates a note path: a safe vault-relative POSIX path ending in `.md`. */
export function validateNotePath(path: unknown): string {
  const p = checkRelativePath(path, 'note');
  if (!p.toLowerCase().endsWith('.md') || p.length <= 3 || p.endsWith('/.md')) {
    throw new DomainError('INVALID_PATH', 'A note path must end in ".md", e.g. "projects/plan.md".');
  }
  return p;
}

/** Validates a folder path; the empty string (or "/") means the vault root. Trailing slashes are ignored. */
export function validateFolderPath(path: unknown): string {
  if (path === '' || path === '/' || path === undefined) return '';
  if (typeof path !== 'string') throw new DomainError('INVALID_PATH', 'The folder path must be a string.');
  return checkRelativePath(path.replace(/\/+$/, ''), 'folder');
}

/** Folder part of a path (`a/b/c.md` -> `a/b`, `c.md` -> ``). */
export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** Last segment of a path. */
export function basename(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

/** File name without a trailing `.md` (any case). */
export function stem(path: string): string {
  const b = basename(path);
  return b.toLowerCase().endsWith('.md') ? b.slice(0, -3) : b;
}

/**
 * Joins `rel` onto folder `base`, resolving `.` and `..`. Returns null when the result
 * would leave the vault.
 */
export function joinRelative(base: string, rel: string): string | null {
  const out = base === '' ? [] : base.split('/');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}
