#!/usr/bin/env node
/**
 * Summarizes a V8 heap snapshot (`.heapsnapshot`, from v8.writeHeapSnapshot or
 * `node --heapsnapshot-signal`) by what holds the bytes: the self size of every node grouped by
 * type and constructor name (`object Map`, `array (object elements)`, `string`, `code`...), largest
 * first. Reads the file as bytes and scans it (a big snapshot is larger than the longest string
 * JSON.parse can take). Prints JSON: `{ total, groups: [{ name, count, bytes }] }`.
 * Usage: node bench/heap-classes.mjs <file.heapsnapshot> [top=40]
 */
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const top = Number(process.argv[3] ?? 40);
if (!file) {
  process.stderr.write('usage: node bench/heap-classes.mjs <file.heapsnapshot> [top]\n');
  process.exit(2);
}
const buf = readFileSync(file);
const find = (needle, from = 0) => {
  const at = buf.indexOf(needle, from);
  if (at < 0) throw new Error(`no ${needle} in ${file}`);
  return at + Buffer.byteLength(needle);
};
// The meta is near the start and small: JSON up to the `"nodes":` key.
const metaStart = buf.indexOf('{"snapshot":');
const nodesAt = find('"nodes":[');
const head = buf
  .subarray(metaStart, nodesAt - '"nodes":['.length)
  .toString()
  .replace(/,\s*$/, '');
const meta = JSON.parse(`${head}}`).snapshot.meta;
const fields = meta.node_fields;
const types = meta.node_types[0];
const F = fields.length;
const TYPE = fields.indexOf('type');
const NAME = fields.indexOf('name');
const SIZE = fields.indexOf('self_size');

/** Scans comma-separated integers from `at` to the closing `]`. */
function numbers(at) {
  const out = [];
  let n = 0;
  let inNum = false;
  for (let i = at; i < buf.length; i++) {
    const c = buf[i];
    if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      inNum = true;
    } else {
      if (inNum) out.push(n);
      n = 0;
      inNum = false;
      if (c === 93) return out;
    }
  }
  return out;
}
const nodes = numbers(nodesAt);
const wanted = new Set();
for (let i = 0; i < nodes.length; i += F) {
  const type = types[nodes[i + TYPE]];
  if (type !== 'string' && type !== 'concatenated string' && type !== 'sliced string')
    wanted.add(nodes[i + NAME]);
}
// The strings table: one JSON string literal after another; only the names needed are decoded.
const strings = new Map();
let i = find('"strings":[');
for (let idx = 0; i < buf.length; idx++) {
  while (buf[i] !== 34 && buf[i] !== 93) i++;
  if (buf[i] === 93) break;
  const start = i;
  i++;
  while (buf[i] !== 34) i += buf[i] === 92 ? 2 : 1;
  i++;
  if (wanted.has(idx)) strings.set(idx, JSON.parse(buf.subarray(start, i).toString()));
}
const groups = new Map();
let total = 0;
for (let k = 0; k < nodes.length; k += F) {
  const type = types[nodes[k + TYPE]];
  const size = nodes[k + SIZE];
  total += size;
  let name;
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = type;
  else if (type === 'object' || type === 'closure' || type === 'native')
    name = `${type} ${strings.get(nodes[k + NAME])}`;
  else {
    const n = String(strings.get(nodes[k + NAME]) ?? '');
    // Arrays, code and hidden nodes carry long or per-instance names: keep the kind only.
    name = `${type} ${n.startsWith('(') ? n.replace(/\)\s.*$/, ')') : ''}`.trim();
  }
  const g = groups.get(name) ?? { name, count: 0, bytes: 0 };
  g.count++;
  g.bytes += size;
  groups.set(name, g);
}
const sorted = [...groups.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top);
process.stdout.write(`${JSON.stringify({ total, groups: sorted })}\n`);
