/**
 * A published page asked by anonymous readers: the first request of a note renders it (micromark,
 * the links decided against the publication), the next ones are served from the pages kept for
 * the vault's generation (core/publish/pages.ts). Both measured in the same run, over the whole
 * in-process app (no socket): 20 notes of about 27 KB (headings, links, lists, code).
 *
 * Usage: npx tsx bench/publish-page.ts
 */
import { composedApp } from '../tests/openapi/compose.ts';

const NOTES = 20;
const para = (i: number) =>
  `## Part ${i}\n\nSome words about [[Note ${i % 7}]] and **bold** text, a list:\n\n- one\n- two [link](https://example.com)\n\n\`\`\`js\nconst x = ${i};\n\`\`\`\n\n`;
const files: Record<string, string> = {};
for (let n = 0; n < NOTES; n++)
  files[`Blog/Big ${n}.md`] = `# Big ${n}\n\n${Array.from({ length: 200 }, (_, i) => para(i)).join('')}`;
for (let i = 0; i < 7; i++) files[`Blog/Note ${i}.md`] = `# Note ${i}\n\ntext\n`;

const { app, auth } = await composedApp(files);
const created = await app.request('http://127.0.0.1:3000/api/v1/publications', {
  method: 'POST',
  headers: { 'x-service-key': auth.firstKeyPlain()!, 'content-type': 'application/json' },
  body: JSON.stringify({ path: 'Blog' }),
});
const { id } = ((await created.json()) as { data: { id: string } }).data;
const url = (n: number) => `http://127.0.0.1:3000/p/${id}/Big%20${n}.md`;

const timed = async (n: number) => {
  const t = performance.now();
  const r = await app.request(url(n));
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`page ${n}: ${r.status}`);
  return performance.now() - t;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const first: number[] = [];
for (let n = 0; n < NOTES; n++) first.push(await timed(n));
const again: number[] = [];
for (let round = 0; round < 10; round++) for (let n = 0; n < NOTES; n++) again.push(await timed(n));
const bytes = Buffer.byteLength(files['Blog/Big 0.md']!);
process.stdout.write(
  `published page of a ${(bytes / 1024).toFixed(1)} KB note: first request (rendered) median ${median(first).toFixed(2)} ms, ` +
    `asked again (kept) median ${median(again).toFixed(2)} ms, ${(median(first) / median(again)).toFixed(0)}x\n`,
);
process.exit(0);
