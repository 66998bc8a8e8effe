/**
 * Every relative link of the README, the other top-level pages and docs/ leads somewhere: the file
 * exists, and a `#fragment` into a markdown page names one of its headings (GitHub's slugs). Links
 * inside code (fenced blocks, inline spans) are examples, not links, and are skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/** The markdown files under `dir`, recursively. */
function pages(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

const FILES = ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'BENCHMARKS.md', ...pages('docs')];

/** The text without fenced code blocks and inline code spans. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

/** The targets of inline links and images, and of reference definitions. */
export function linkTargets(markdown: string): string[] {
  const text = prose(markdown);
  const targets: string[] = [];
  for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(m[1]!);
  for (const m of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) targets.push(m[1]!);
  return targets;
}

/** GitHub's anchor for each heading of a page (duplicates get -1, -2, ...). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = m[1]!
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

const isRelative = (t: string) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('/');

describe('relative links in the README and docs/', () => {
  it('covers the README, the guide, the reference and the decisions', () => {
    expect(FILES).toContain('README.md');
    for (const dir of ['docs/guide/', 'docs/reference/', 'docs/decisions/'])
      expect(
        FILES.some((f) => f.startsWith(dir)),
        dir,
      ).toBe(true);
  });

  it('anchors follow GitHub: lowercase, punctuation dropped, spaces to hyphens', () => {
    expect([...anchors("# Memory: V8's heap flags\n## `PATCH /x`: one part\n## A\n## A\n")]).toEqual([
      'memory-v8s-heap-flags',
      'patch-x-one-part',
      'a',
      'a-1',
    ]);
    expect(linkTargets('[a](b.md#c) `[x](no.md)`\n```\n[y](no.md)\n```\n[r]: ref.md\n')).toEqual([
      'b.md#c',
      'ref.md',
    ]);
  });

  for (const file of FILES) {
    it(`${file}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const target of linkTargets(readFileSync(join(ROOT, file), 'utf8'))) {
        if (!isRelative(target)) continue;
        const [path = '', fragment] = target.split('#');
        const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path));
        if (!existsSync(resolved)) {
          broken.push(`${target} (no ${relative(ROOT, resolved)})`);
          continue;
        }
        if (fragment && resolved.endsWith('.md') && statSync(resolved).isFile()) {
          if (!anchors(readFileSync(resolved, 'utf8')).has(fragment))
            broken.push(`${target} (no heading #${fragment} in ${relative(ROOT, resolved)})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
