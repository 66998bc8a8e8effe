/**
 * Shared by the slow-body flood tests of the standalone and the embedded relay (a stranger cannot
 * fill its memory).
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { until } from '../helpers/wait.ts';

/** The resident set of process `pid` in MiB (Linux). */
export const rssMiB = (pid: number | undefined): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

export interface SlowBody {
  answered: Promise<string>;
  status: () => Promise<number>;
}

/**
 * A raw POST to `127.0.0.1:port` that declares `declared` bytes, sends `sent` of them (byte `fill`)
 * and stalls; `answered` resolves with what came back. The socket is pushed to `sockets` so the
 * test can destroy it.
 */
export function slowBody(opts: {
  port: number;
  path: string;
  headers: Record<string, string>;
  declared: number;
  sent: number;
  fill: number;
  sockets: Socket[];
}): SlowBody {
  const socket = connect(opts.port, '127.0.0.1');
  opts.sockets.push(socket);
  let text = '';
  const answered = new Promise<string>((resolve) => {
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.on('error', () => resolve(text));
    socket.on('close', () => resolve(text));
  });
  const head = Object.entries(opts.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(
    `POST ${opts.path} HTTP/1.1\r\nhost: relay\r\n${head}content-length: ${opts.declared}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(opts.sent, opts.fill));
  return { answered, status: async () => Number(/^HTTP\/1\.1 (\d{3})/.exec(await answered)?.[1] ?? 0) };
}

/** Waits until `refused` of the slow bodies got 429 (up to 10 s); the statuses seen by then (0: none yet). */
export async function overBudgetRefused(real: SlowBody[], refused: number): Promise<number[]> {
  return (await until(
    'the over-budget ones to be refused',
    async () => {
      const done = await Promise.all(
        real.map((r) =>
          Promise.race([r.status(), new Promise<number>((res) => setTimeout(() => res(0), 5))]),
        ),
      );
      return done.filter((s) => s === 429).length >= refused ? done : undefined;
    },
    10_000,
  )) as number[];
}
