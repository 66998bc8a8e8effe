/**
 * Base64 on the relay's long-poll path (queue items and answers carry bodies as base64), in one
 * run: `Buffer` (node:buffer, what the wire code used before it went web-standard), `btoa`/`atob`
 * over a binary string (core/crypto.ts as of 4f5c508), and core/crypto.ts now (table-based, or
 * the platform's `Uint8Array` base64 where it has one). Prints MB/s per body size, median of
 * BENCH_B64_ROUNDS (default 5) rounds. Standalone: `npx tsx bench/base64.ts`.
 */
import { fromBase64, toBase64 } from '../core/crypto.ts';

/** core/crypto.ts's base64 as of 4f5c508: btoa/atob over a binary string. */
const viaBtoa = {
  to(bytes: Uint8Array): string {
    const parts: string[] = [];
    for (let i = 0; i < bytes.length; i += 0x8000)
      parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]));
    return btoa(parts.join(''));
  },
  from(text: string): Uint8Array {
    const bin = atob(text);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  },
};
const viaBuffer = {
  to: (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
  from: (text: string) => new Uint8Array(Buffer.from(text, 'base64')),
};
const now = { to: toBase64, from: fromBase64 };
const ways = { buffer: viaBuffer, btoa: viaBtoa, core: now } as const;

const rounds = Number(process.env.BENCH_B64_ROUNDS ?? 5);
const sizes = [256, 4 * 1024, 64 * 1024, 1024 * 1024];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** MB/s of `fn` over `bytes` bytes, about 200 ms per round. */
function rate(fn: () => unknown, bytes: number): number {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    let t = start;
    while (t - start < 200) {
      for (let k = 0; k < 16; k++) fn();
      n += 16;
      t = performance.now();
    }
    out.push((n * bytes) / 1e6 / ((t - start) / 1000));
  }
  return median(out);
}

const rows: string[] = [];
rows.push('| body | way | encode MB/s | decode MB/s | encode vs Buffer | decode vs Buffer |');
rows.push('|---|---|---|---|---|---|');
for (const size of sizes) {
  const bytes = crypto.getRandomValues(new Uint8Array(Math.min(size, 65536)));
  const body = new Uint8Array(size);
  for (let i = 0; i < size; i += bytes.length)
    body.set(bytes.subarray(0, Math.min(bytes.length, size - i)), i);
  const text = viaBuffer.to(body);
  const base = { to: 0, from: 0 };
  for (const [name, way] of Object.entries(ways)) {
    if (way.to(body) !== text) throw new Error(`${name} encodes differently`);
    const enc = rate(() => way.to(body), size);
    const dec = rate(() => way.from(text), size);
    if (name === 'buffer') Object.assign(base, { to: enc, from: dec });
    const label =
      size >= 1024 * 1024 ? `${size / 1024 / 1024} MiB` : size >= 1024 ? `${size / 1024} KiB` : `${size} B`;
    rows.push(
      `| ${label} | ${name} | ${enc.toFixed(0)} | ${dec.toFixed(0)} | ${(enc / base.to).toFixed(2)} | ${(dec / base.from).toFixed(2)} |`,
    );
  }
}
console.log(rows.join('\n'));
