import { DomainError } from '../errors.ts';
import { validateFolderPath } from '../paths.ts';

/**
 * Validates an attachment path: the same rules as a note path (relative, no empty, `.` or `..`
 * segment, no dot-folders, no backslash or control character, length caps) but NOT ending in
 * `.md`: notes have their own routes.
 */
export function validateFilePath(path: unknown): string {
  if (typeof path !== 'string' || path === '' || path.endsWith('/')) {
    throw new DomainError('INVALID_PATH', 'A file path must name a file, e.g. "attachments/diagram.png".');
  }
  const p = validateFolderPath(path);
  if (p === '')
    throw new DomainError('INVALID_PATH', 'A file path must name a file, e.g. "attachments/diagram.png".');
  if (p.toLowerCase().endsWith('.md')) {
    throw new DomainError('INVALID_PATH', 'That is a note path: use /api/v1/notes for ".md" files.');
  }
  return p;
}
