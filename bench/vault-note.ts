import type { PlannedNote, VaultPlan } from './vault-plan.ts';
import { createRng, HEADINGS, NAME_WORDS, type Rng, sentence, subSeed, TAGS, WORDS } from './vault-text.ts';

/** The path of `to` relative to folder `from`, percent-encoded the way Obsidian writes it. */
function relativeLink(from: string, to: string): string {
  const a = from.split('/');
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const ups = a.length - i;
  const rel = [...Array<string>(ups).fill('..'), ...b.slice(i)];
  return (ups === 0 ? ['.', ...rel] : rel).map((s) => encodeURIComponent(s)).join('/');
}

const pickTarget = (rng: Rng, plan: VaultPlan, self: PlannedNote): PlannedNote => {
  const r = rng.next();
  if (r < 0.15) return plan.notes[rng.pick(plan.hubs)]!;
  if (r < 0.5) return plan.notes[rng.pick(plan.byFolder.get(self.folder)!)]!;
  return rng.pick(plan.notes);
};

/** One link as it would appear in the text; `block` links (embeds) stand on their own line. */
function makeLink(rng: Rng, plan: VaultPlan, self: PlannedNote): { text: string; block: boolean } {
  if (rng.chance(0.07)) {
    const missing = `Unwritten ${rng.pick(NAME_WORDS)} ${rng.int(1, 500)}`;
    return { text: `[[${missing}]]`, block: false };
  }
  const t = pickTarget(rng, plan, self);
  const shared = (plan.stemCount.get(t.stem.toLowerCase()) ?? 1) > 1;
  const label = shared || rng.chance(0.08) ? `${t.folder}/${t.stem}` : t.stem;
  const r = rng.next();
  if (r < 0.52) return { text: `[[${label}]]`, block: false };
  if (r < 0.67) return { text: `[[${label}|${rng.pick(WORDS)} ${rng.pick(WORDS)}]]`, block: false };
  if (r < 0.8) return { text: `[[${label}#${rng.pick(t.headings)}]]`, block: false };
  if (r < 0.88) return { text: `![[${label}]]`, block: true };
  return { text: `[${rng.pick(WORDS)} notes](${relativeLink(self.folder, t.path)})`, block: false };
}

function frontmatter(rng: Rng, note: PlannedNote): { text: string; hasTitle: boolean } {
  const lines: string[] = [];
  const hasTitle = rng.chance(0.5);
  if (hasTitle) lines.push(`title: ${JSON.stringify(`${note.stem}${rng.chance(0.3) ? ': notes' : ''}`)}`);
  const tags = new Set<string>();
  const n = rng.int(0, 4);
  while (tags.size < n) tags.add(rng.pick(TAGS));
  const r = rng.next();
  if (tags.size && r < 0.5) lines.push('tags:', ...[...tags].map((t) => `  - ${t}`));
  else if (tags.size && r < 0.8) lines.push(`tags: ${[...tags].join(', ')}`);
  else if (tags.size) lines.push(`tags: [${[...tags].join(', ')}]`);
  const m = String(rng.int(1, 12)).padStart(2, '0');
  const d = String(rng.int(1, 28)).padStart(2, '0');
  lines.push(`created: ${rng.int(2019, 2024)}-${m}-${d}`);
  if (rng.chance(0.2)) lines.push(`aliases: [${JSON.stringify(note.stem.toLowerCase())}]`);
  if (rng.chance(0.1)) lines.push('status: draft', 'rating: 4');
  return { text: `---\n${lines.join('\n')}\n---\n`, hasTitle };
}

const CODE = [
  'const cache = new Map<string, number>();\n// [[Not A Link]] inside code\nexport default cache;',
  'SELECT id, title FROM notes\nWHERE tags LIKE "%#project%"\nORDER BY created DESC;',
  'npm install --save-dev autocannon\nnpm run bench',
];

/**
 * The full text of note `index` of `plan`: frontmatter on most notes, an H1 on some,
 * sections with paragraphs and lists, 3 to 10 links, inline tags, 200 to 800 words.
 * Deterministic for (plan, index, seed).
 */
export function renderNote(plan: VaultPlan, index: number, seed: number): string {
  const rng = createRng(subSeed(seed, index));
  const note = plan.notes[index]!;
  const out: string[] = [];
  let hasTitle = false;
  if (rng.chance(0.85)) {
    const fm = frontmatter(rng, note);
    out.push(fm.text);
    hasTitle = fm.hasTitle;
  }
  if (!hasTitle && rng.chance(0.7)) out.push(`# ${note.stem}\n`);

  // Blocks are arrays of sentences (paragraphs) or items (lists); links are added into them.
  const sections: { heading: string; blocks: { list: boolean; parts: string[] }[]; extra: string[] }[] = [];
  const target = rng.int(200, 800);
  let words = 0;
  let h = 0;
  while (words < target) {
    const heading = h < note.headings.length ? note.headings[h]! : rng.pick(HEADINGS);
    const section = { heading, blocks: [], extra: [] };
    sections.push(section);
    h++;
    const nBlocks = rng.int(1, 4);
    for (let b = 0; b < nBlocks && words < target; b++) {
      const list = rng.chance(0.25);
      const parts: string[] = [];
      const n = list ? rng.int(2, 6) : rng.int(2, 6);
      for (let s = 0; s < n; s++) {
        const len = list ? rng.int(3, 10) : rng.int(6, 18);
        parts.push(sentence(rng, len));
        words += len;
      }
      (section.blocks as { list: boolean; parts: string[] }[]).push({ list, parts });
    }
  }
  const allParts = sections.flatMap((s) => s.blocks);
  const nLinks = rng.int(3, 10);
  for (let i = 0; i < nLinks; i++) {
    const link = makeLink(rng, plan, note);
    if (link.block) {
      rng.pick(sections).extra.push(link.text);
      continue;
    }
    const block = rng.pick(allParts);
    const at = rng.int(0, block.parts.length - 1);
    const phrase = rng.pick(['See', 'Related:', 'Compare', 'From']);
    block.parts[at] = `${block.parts[at]} ${phrase} ${link.text}.`;
  }
  const nTags = rng.chance(0.6) ? rng.int(1, 3) : 0;
  for (let i = 0; i < nTags; i++) {
    const block = rng.pick(allParts);
    block.parts[block.parts.length - 1] += ` #${rng.pick(TAGS)}`;
  }
  if (rng.chance(0.1)) allParts[0]?.parts.push('Docs at [the site](https://example.com/docs).');
  const codeAt = rng.chance(0.2) ? rng.int(0, sections.length - 1) : -1;

  sections.forEach((s, i) => {
    out.push(`## ${s.heading}\n`);
    for (const b of s.blocks) {
      if (b.list) {
        const task = rng.chance(0.3);
        out.push(
          `${b.parts.map((p) => `- ${task ? `[${rng.chance(0.5) ? 'x' : ' '}] ` : ''}${p}`).join('\n')}\n`,
        );
      } else out.push(`${b.parts.join(' ')}\n`);
    }
    for (const e of s.extra) out.push(`${e}\n`);
    if (i === codeAt) out.push(`\`\`\`${rng.pick(['ts', 'sql', 'sh'])}\n${rng.pick(CODE)}\n\`\`\`\n`);
  });
  return out.join('\n');
}
