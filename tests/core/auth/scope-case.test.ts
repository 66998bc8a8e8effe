/**
 * Security review, fourth round, finding 4 (case): folder scopes compare names the way the vault's
 * file system does. On a case-insensitive one (macOS, Windows) `Work/PRIVATE/` is the folder
 * `Work/private/`, so `exclude: ["Work/private/"]` must hide it. This machine's file system is
 * case-sensitive: the folding is driven through the store port's `foldsCase`, as a server on such
 * a file system sets it (the probe itself is tested in tests/adapters/store/fs-note-store.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { inScope, type KeyScope, setScopeFolding } from '../../../core/auth/scope.ts';
import { scopedNotes } from '../../../core/auth/scoped.ts';
import { createCore } from '../../../core/create-core.ts';

const clock = { now: () => Date.now() };
const scope: KeyScope = { capabilities: ['notes:read'], folders: ['Work/'], exclude: ['Work/private/'] };

afterEach(() => setScopeFolding(false));

describe('folder scopes and the case of names', () => {
  it('compare exactly on a case-sensitive vault', () => {
    setScopeFolding(false);
    expect(inScope(scope, 'Work/private/x.md')).toBe(false);
    // Another folder there: Work/PRIVATE is not Work/private.
    expect(inScope(scope, 'Work/PRIVATE/x.md')).toBe(true);
    expect(inScope(scope, 'work/a.md')).toBe(false);
  });

  it('compare folded on a case-insensitive vault', () => {
    setScopeFolding(true);
    expect(inScope(scope, 'Work/PRIVATE/x.md')).toBe(false);
    expect(inScope(scope, 'WORK/Private/x.md')).toBe(false);
    expect(inScope(scope, 'work/a.md')).toBe(true);
    expect(inScope(scope, 'Work/a.md')).toBe(true);
    expect(inScope(scope, 'Other/a.md')).toBe(false);
    // Unicode normalization too (macOS stores names decomposed).
    const nfd = { capabilities: ['notes:read'], exclude: ['Caf\u0065\u0301/'] } satisfies KeyScope;
    expect(inScope(nfd, 'CAF\u00c9/x.md')).toBe(false);
  });

  it('a core over a store that folds case hides the excluded folder in any spelling', async () => {
    const files = { 'Work/PRIVATE/salary.md': '# Salary\n', 'Work/a.md': '# A\n' };
    const principal = { id: 'k', method: 'api-key' as const, scope };
    const sensitive = createCore({ store: memoryNoteStore({ files }), clock });
    await sensitive.load();
    expect(
      scopedNotes(sensitive.notes, principal)
        .list()
        .items.map((n) => n.path)
        .sort(),
    ).toEqual(['Work/PRIVATE/salary.md', 'Work/a.md']);
    const store = Object.assign(memoryNoteStore({ files }), { foldsCase: true });
    const core = createCore({ store, clock });
    await core.load();
    const view = scopedNotes(core.notes, principal);
    expect(view.list().items.map((n) => n.path)).toEqual(['Work/a.md']);
    await expect(view.get('Work/PRIVATE/salary.md')).rejects.toMatchObject({ code: 'NOTE_NOT_FOUND' });
  });
});
