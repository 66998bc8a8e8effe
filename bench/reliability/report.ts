/** Markdown for the reliability section of BENCHMARKS.md. */
import type { RouteResult } from '../../tests/reliability/scenarios/load.ts';
import type { NotesCrashResult } from '../../tests/reliability/scenarios/notes-crash.ts';
import type { RelayFaultsResult } from '../../tests/reliability/scenarios/relay-faults.ts';
import type { ShutdownResult } from '../../tests/reliability/scenarios/shutdown.ts';
import type { StateCrashResult } from '../../tests/reliability/scenarios/state-crash.ts';

/** Everything one reliability run measured. */
export interface ReliabilityRun {
  header: string[];
  clients: number;
  seconds: number;
  warmupSeconds: number;
  notes: number;
  load: RouteResult[];
  notesCrash: NotesCrashResult;
  stateCrash: StateCrashResult;
  faults: RelayFaultsResult;
  shutdown: ShutdownResult;
  minutes: number;
}

const cell = (n: number) => (n ? `**${n}**` : '0');
const list = (o: Record<string, number>) =>
  Object.entries(o)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');

/** RSS every `step` seconds (the sample nearest each mark). */
function rssTable(load: RouteResult[], step: number): string[] {
  const lines = [`| t (s) | ${load.map((r) => `${r.route}: server / relay MiB`).join(' | ')} |`];
  lines.push(`|---|${load.map(() => '---').join('|')}|`);
  const end = Math.max(...load.map((r) => r.rss.at(-1)?.t ?? 0));
  for (let t = 0; t <= end + 0.01; t += step) {
    const cells = load.map((r) => {
      const s = r.rss.reduce((best, x) => (Math.abs(x.t - t) < Math.abs(best.t - t) ? x : best), r.rss[0]!);
      return `${s.server} / ${s.relay}`;
    });
    lines.push(`| ${Math.round(t)} | ${cells.join(' | ')} |`);
  }
  return lines;
}

/** The section appended to BENCHMARKS.md. */
export function renderReliability(r: ReliabilityRun): string {
  const v = (x: { violations: string[] }) => cell(x.violations.length);
  const out = [
    `## Reliability run, ${new Date().toISOString().slice(0, 10)}`,
    '',
    ...r.header,
    '',
    `Load: ${r.clients} concurrent clients, each sending its next request when the last is answered, ${r.seconds} s measured after ${r.warmupSeconds} s of warm-up, per route; vault of ${r.notes} generated notes; mix 60% GET note, 7% GET /notes, 18% search, 12% PUT (own note), 3% POST (new note); API-key auth, LOG_LEVEL=warn. Relay: memory queue, its own process. Errors = 5xx + network errors + any unexpected status. RSS growth = lowest sample of the last third minus highest of the first third (negative: flat).`,
    '',
    '| route | requests | req/s | errors | p50 ms | p90 ms | p99 ms | max ms | server RSS MiB (min–max) | relay RSS MiB (min–max) | RSS growth server / relay MiB |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const l of r.load) {
    const srv = l.rss.map((s) => s.server);
    const rel = l.rss.map((s) => s.relay);
    out.push(
      `| ${l.route} | ${l.requests.toLocaleString('en-US')} | ${l.rps} | ${cell(l.errors)} | ${l.p50} | ${l.p90} | ${l.p99} | ${l.max} | ${Math.min(...srv)}–${Math.max(...srv)} | ${Math.min(...rel)}–${Math.max(...rel)} | ${l.serverGrowthMiB} / ${l.relayGrowthMiB} |`,
    );
  }
  out.push('', 'Latency by operation (p50 / p99 ms):', '');
  for (const l of r.load)
    out.push(
      `- ${l.route}: ${Object.entries(l.ops)
        .map(([op, x]) => `${op} ${x.p50} / ${x.p99}`)
        .join(', ')}`,
    );
  out.push('', 'RSS over time:', '', ...rssTable(r.load, Math.max(5, Math.round(r.seconds / 12))), '');
  const n = r.notesCrash;
  const s = r.stateCrash;
  out.push(
    '| kill test | seed | kill points | requests | acknowledged | cut by the kill | checked | temp files left by kills (all removed) | violations |',
    '|---|---|---|---|---|---|---|---|---|',
    `| notes (creates, updates, moves, deletes) | ${n.seed} | ${n.killPoints} | ${n.ops} | ${n.acknowledged} | ${n.cut} | ${n.notesChecked} notes | ${n.leftovers} | ${v(n)} |`,
    `| state files (keys minted/revoked, codes rotated, index cache) | ${s.seed} | ${s.killPoints} | ${s.ops} | ${s.acknowledged} | ${s.cut} | ${s.keysChecked} keys | ${s.leftovers} | ${v(s)} |`,
    '',
  );
  const f = r.faults;
  out.push(
    `Relay faults (own redis-server, relays A and B, 12 clients through A, connector on B): ${f.requests} requests, violations ${v(f)}; creates: ${f.creates.acknowledged} acknowledged, ${f.creates.refused} refused (503 or not sent, none ran), ${f.creates.timedOut} answered 504 (${f.creates.timedOutButDone} of them had run: ${list(f.timedOutButDoneBy) || 'none'}); ${f.resets} connection resets while A closed its port (none ran).`,
    '',
    '| fault | flowing again after the restart | answers while it lasted |',
    '|---|---|---|',
    ...f.faults.map((x) => `| ${x.fault} | ${x.recoveredMs} ms | ${list(x.outcomes)} |`),
    '',
  );
  const d = r.shutdown;
  out.push(
    `Graceful shutdown (SIGTERM under load, 8 clients direct and 8 through the relay): exit code ${d.exitCode} after ${Math.round(d.exitMs)} ms; ${d.finishedAcross} requests in flight at the SIGTERM finished with 2xx; answers: ${list(d.outcomes)}; after the exit the relay answered ${d.afterExit.status} ${d.afterExit.code ?? ''} in ${Math.round(d.afterExit.ms)} ms; violations ${v(d)}.`,
    '',
    `Whole reliability run: ${r.minutes.toFixed(1)} min.`,
  );
  const all = [
    ...r.load.flatMap(() => []),
    ...n.violations,
    ...s.violations,
    ...f.violations,
    ...d.violations,
  ];
  if (all.length) out.push('', 'Violations:', '', ...all.slice(0, 30).map((x) => `- ${x}`));
  return `${out.join('\n')}\n`;
}
