/**
 * A bounded delivery queue with retries and backoff: a few sends at a time, a failed attempt
 * waits its delay and goes again, and `stop()` drops everything waiting and aborts what is in
 * flight, so nothing is sent after it returns.
 */

/** One message to one URL. */
export interface DeliveryJob {
  /** The message id (the same on every attempt). */
  id: string;
  url: string;
  /** What the message is about, for the record. */
  event: string;
  path: string;
  body: string;
  /** 1 on the first attempt. */
  attempt: number;
}

/** How one attempt went. `retry` false means give up now (refused, 4xx). */
export type AttemptResult =
  | { ok: true; status: number }
  | { ok: false; retry: boolean; status: number | null; error: string; refused?: boolean };

export interface DeliveryQueueOptions {
  send(job: DeliveryJob, signal: AbortSignal): Promise<AttemptResult>;
  /** Waits before the 2nd, 3rd, ... attempt, in ms; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  /** Most messages waiting, retrying or in flight; more are dropped. */
  maxQueue: number;
  /** Most sends at once. */
  concurrency: number;
  /** After every attempt; `final` when the message will not be tried again. */
  onAttempt(job: DeliveryJob, result: AttemptResult, final: boolean): void;
}

/** Builds a queue; `push` answers false (dropped) when it is full or stopped. */
export function createDeliveryQueue(opts: DeliveryQueueOptions) {
  const ready: DeliveryJob[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const inFlight = new Set<AbortController>();
  let waiting = 0;
  let stopped = false;

  const pump = () => {
    while (!stopped && inFlight.size < opts.concurrency && ready.length) {
      const job = ready.shift()!;
      const ctl = new AbortController();
      inFlight.add(ctl);
      opts
        .send(job, ctl.signal)
        .catch((err): AttemptResult => ({ ok: false, retry: true, status: null, error: String(err) }))
        .then((result) => {
          inFlight.delete(ctl);
          if (stopped) return;
          const delay = opts.retryDelaysMs[job.attempt - 1];
          const final = result.ok || !result.retry || delay === undefined;
          opts.onAttempt(job, result, final);
          if (!final) {
            waiting++;
            const t = setTimeout(() => {
              timers.delete(t);
              waiting--;
              ready.push({ ...job, attempt: job.attempt + 1 });
              pump();
            }, delay);
            timers.add(t);
          }
          pump();
        });
    }
  };

  return {
    push(job: DeliveryJob): boolean {
      if (stopped || ready.length + waiting + inFlight.size >= opts.maxQueue) return false;
      ready.push(job);
      pump();
      return true;
    },
    /** Messages waiting, retrying or in flight. */
    size: () => ready.length + waiting + inFlight.size,
    inFlight: () => inFlight.size,
    /** Drops every waiting message, cancels retries, aborts sends in flight. */
    stop() {
      stopped = true;
      ready.length = 0;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      waiting = 0;
      for (const ctl of inFlight) ctl.abort();
      inFlight.clear();
    },
  };
}
