/**
 * The accounting of the relay fault scenario: every answer a client got, checked against the
 * notes on disk and the server's own access log.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Outcome } from './http.ts';

/** One request the scenario sent and what it got. */
export interface Sent {
  op: 'create' | 'read' | 'list' | 'delete';
  path: string;
  content?: string;
  start: number;
  end?: number;
  out: Outcome;
}

/** The figures and violations `checkAnswers` finds. */
export interface Answered {
  /** Answers by operation and outcome, e.g. `create 201`, `read 503 NOT_READY`. */
  outcomes: Record<string, number>;
  creates: { acknowledged: number; refused: number; timedOut: number; timedOutButDone: number };
  /** Creates answered 504 that did run, by the fault whose window the request overlapped. */
  timedOutButDoneBy: Record<string, number>;
  /** Requests whose fresh connection was reset while `resetFault` went on (each verified not run). */
  resets: number;
  violations: string[];
}

/** An outcome as a short label: `201`, `503 SERVER_OFFLINE`, `ECONNREFUSED`. */
export const label = (o: Outcome) =>
  o.status === 0
    ? o.error
    : o.status >= 400
      ? `${o.status} ${o.json?.error?.code ?? ''}`.trim()
      : `${o.status}`;

/**
 * Every request got one answer (2xx, 503 or 504; only a refused connection counts as not sent,
 * and a reset only while `resetFault` closed the clients' port); a 503, a refusal or a reset
 * never ran; an acknowledged create is on disk; and the server's log shows no request run twice
 * (a 409 on a unique path, a 404 on a first delete).
 */
export async function checkAnswers(opts: {
  sent: Sent[];
  windows: { name: string; from: number; to: number }[];
  vault: string;
  serverLog: Record<string, number>;
  resetFault: string;
}): Promise<Answered> {
  const { sent, windows, vault, serverLog, resetFault } = opts;
  const violations: string[] = [];
  const outcomes: Record<string, number> = {};
  const creates = { acknowledged: 0, refused: 0, timedOut: 0, timedOutButDone: 0 };
  const deletedOrDoubtful = new Set<string>();
  const resets: Sent[] = [];
  const timedOutButDoneBy: Record<string, number> = {};
  for (const s of sent) {
    const l = label(s.out);
    outcomes[`${s.op} ${l}`] = (outcomes[`${s.op} ${l}`] ?? 0) + 1;
    const ok = s.out.status >= 200 && s.out.status < 300;
    const notSent = s.out.status === 0 && !s.out.sent;
    // Closing a listening socket resets the connections still in the kernel's accept queue:
    // unread, so they never ran (checked below), but their clients cannot tell. Only then.
    const during = windows.find((f) => s.start < f.to && (s.end ?? s.start) > f.from)?.name;
    const reset = s.out.status === 0 && !!s.out.sent && during === resetFault;
    if (reset) resets.push(s);
    const allowed = ok || s.out.status === 503 || s.out.status === 504 || notSent || reset;
    if (!allowed) violations.push(`${s.op} ${s.path}: ${l}${during ? ` (during: ${during})` : ''}`);
    if (s.op === 'delete' && !(s.out.status === 503 || notSent || reset)) deletedOrDoubtful.add(s.path);
  }
  for (const s of resets) {
    const onDisk = await readFile(join(vault, s.path), 'utf8').catch(() => null);
    if (s.op === 'delete' && onDisk === null) violations.push(`delete ${s.path}: reset, yet it ran`);
  }
  for (const s of sent) {
    if (s.op !== 'create') continue;
    const onDisk = await readFile(join(vault, s.path), 'utf8').catch(() => null);
    if (s.out.status === 201) {
      creates.acknowledged++;
      if (!deletedOrDoubtful.has(s.path) && onDisk !== s.content)
        violations.push(`create ${s.path}: 201 but not on disk`);
    } else if (s.out.status === 504) {
      creates.timedOut++;
      if (onDisk !== null) {
        creates.timedOutButDone++;
        const w = windows.find((f) => s.start < f.to && (s.end ?? s.start) > f.from);
        const at = w?.name ?? 'no fault';
        timedOutButDoneBy[at] = (timedOutButDoneBy[at] ?? 0) + 1;
      }
    } else {
      creates.refused++;
      if (onDisk !== null) violations.push(`create ${s.path}: answered ${label(s.out)} but it ran`);
    }
  }
  // Every path is created once and deleted at most once: a 409 or a 404 in the server's own log
  // is a request that ran twice, whatever its client was told.
  for (const k of ['POST 409', 'DELETE 404'])
    if (serverLog[k]) violations.push(`the server ran ${serverLog[k]} request(s) twice (${k} in its log)`);
  return { outcomes, creates, timedOutButDoneBy, resets: resets.length, violations };
}
