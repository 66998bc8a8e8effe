import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Health } from '../../../adapters/http/openapi/responses.ts';
import { createHealthBody } from '../../../adapters/http/routes/system.ts';
import { memoryNoteStore } from '../../../adapters/store/memory-note-store.ts';
import { createNoteService } from '../../../core/notes/service.ts';

/** The index's own bytes (estimated) in `health`, to see what a large vault costs. */
const vault = (n: number) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `folder ${i % 5}/note ${i}.md`,
      `---\ntags: [shared, type/x]\n---\n# Note ${i}\nWords about thing ${i} and [[note ${(i + 1) % n}]] #inline`,
    ]),
  );

describe('the index as a memory budget', () => {
  it('estimates its own bytes by part, growing with the vault, and health shows them once ready', async () => {
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    const small = createNoteService({ store: memoryNoteStore({ files: vault(20) }), clock });
    const large = createNoteService({ store: memoryNoteStore({ files: vault(400) }), clock });
    const health = createHealthBody({ notes: large, version: 't', clock });
    const before = JSON.parse(new TextDecoder().decode(health()));
    expect(before.data.index.bytes).toBeUndefined();
    await Promise.all([small.load(), large.load()]);
    const s = small.memory();
    const l = large.memory();
    for (const m of [s, l]) {
      expect(m.notes).toBeGreaterThan(0);
      expect(m.links).toBeGreaterThan(0);
      expect(m.search).toBeGreaterThan(0);
      expect(m.total).toBe(m.notes + m.links + m.search + m.summaries);
    }
    expect(l.notes).toBeGreaterThan(s.notes * 10);
    expect(l.search).toBeGreaterThan(s.search * 5);
    // Summaries count once a list built them.
    expect(l.summaries).toBe(0);
    large.list();
    now += 31_000;
    await large.create('folder 0/new.md', '# New');
    const after = large.memory();
    expect(after.summaries).toBeGreaterThan(0);
    now += 1_000;
    const body = JSON.parse(new TextDecoder().decode(health()));
    expect(v.safeParse(Health, body.data).success).toBe(true);
    expect(body.data.index.bytes.total).toBe(Math.round(after.total / 1024) * 1024);
    expect(Object.keys(body.data.index.bytes).sort()).toEqual([
      'links',
      'notes',
      'search',
      'summaries',
      'total',
    ]);
  });
});
