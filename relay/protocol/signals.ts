/**
 * One signal that aborts when any of `signals` does (or after `timeoutMs`). Unlike Node 20's
 * `AbortSignal.any`, which keeps every combined signal alive for as long as a long-lived source
 * lives (a leak of ~2 KB per call), `dispose()` unhooks it: call it when done.
 */
export function linkSignals(signals: (AbortSignal | undefined)[], timeoutMs?: number) {
  const ctl = new AbortController();
  const abort = () => ctl.abort();
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  for (const s of live) {
    if (s.aborted) ctl.abort();
    else s.addEventListener('abort', abort, { once: true });
  }
  const timer = timeoutMs === undefined ? undefined : setTimeout(abort, timeoutMs);
  return {
    signal: ctl.signal,
    dispose() {
      clearTimeout(timer);
      for (const s of live) s.removeEventListener('abort', abort);
    },
  };
}
