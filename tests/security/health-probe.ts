import { Worker } from 'node:worker_threads';

/**
 * The worker's code, plain JavaScript: one `GET /api/v1/health` at a time on a fresh connection,
 * one every 20 ms or so, as a monitor does. In a thread of its own, so the fuzz generator's work on
 * the main thread does not delay its timing (its figures are the server's, plus loopback).
 */
const PROBE = `
const { connect } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const { port, stallMs } = workerData;
const ms = [];
const bad = [];
let running = true;
parentPort.on('message', (m) => { if (m === 'stop') running = false; });
const once = () => new Promise((resolve) => {
  let head = '';
  const s = connect(port, '127.0.0.1');
  const timer = setTimeout(() => { s.destroy(); resolve('no answer within ' + stallMs + ' ms'); }, stallMs);
  s.on('connect', () => s.write('GET /api/v1/health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n'));
  s.on('data', (d) => { if (head.length < 64) head += d.toString('latin1'); });
  s.on('error', (e) => { clearTimeout(timer); resolve(String(e)); });
  s.on('close', () => { clearTimeout(timer); resolve(/^HTTP\\/1\\.1 200 /.test(head) ? null : 'health answered ' + head.slice(0, 20)); });
});
(async () => {
  while (running) {
    const t0 = performance.now();
    const why = await once();
    ms.push(performance.now() - t0);
    if (why) bad.push(why);
    parentPort.postMessage({ taken: ms.length });
    await new Promise((r) => setTimeout(r, 20));
  }
  parentPort.postMessage({ done: { ms, bad } });
})();
`;

export interface HealthFigures {
  count: number;
  p50: number;
  p99: number;
  max: number;
  bad: string[];
}

/** Health's latency from the client side, measured in a worker thread until `stop`. */
export function healthProbe(port: number, stallMs: number) {
  const worker = new Worker(PROBE, { eval: true, workerData: { port, stallMs } });
  let taken = 0;
  const done = new Promise<{ ms: number[]; bad: string[] }>((resolve, reject) => {
    worker.on('message', (m) => {
      if (m.taken) taken = m.taken;
      if (m.done) resolve(m.done);
    });
    worker.on('error', reject);
  });
  return {
    taken: () => taken,
    async stop(): Promise<HealthFigures> {
      worker.postMessage('stop');
      const { ms, bad } = await done;
      await worker.terminate();
      const sorted = [...ms].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { count: ms.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, bad };
    },
  };
}
