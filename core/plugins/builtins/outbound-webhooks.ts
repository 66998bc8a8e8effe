/**
 * `outbound-webhooks`: on note events, POSTs signed JSON (Standard Webhooks) to the configured
 * URLs, with retries and backoff, a bounded queue, and a record of recent deliveries. Loopback
 * and private destinations are refused unless `allowPrivateNetwork` is set.
 */
import * as v from 'valibot';
import { toHex } from '../../crypto.ts';
import type { NoteEvent } from '../../notes/service.ts';
import { definePlugin } from '../define.ts';
import { egressProblem, isHttpUrl, isPrivateLiteralUrl } from '../egress.ts';
import { type AttemptResult, createDeliveryQueue, type DeliveryJob } from './delivery-queue.ts';
import { generateWebhookSecret, isWebhookSecret, signWebhook } from './webhook-sign.ts';

const EVENTS = ['created', 'updated', 'moved', 'deleted'] as const;
const RECENT = 50;

const Url = v.pipe(
  v.string(),
  v.url('Must be an absolute URL.'),
  v.check(isHttpUrl, 'Must be an http or https URL.'),
);

const Config = v.pipe(
  v.object({
    urls: v.pipe(
      v.optional(v.pipe(v.array(Url), v.maxLength(10, 'At most 10 URLs.')), []),
      v.description('Where to POST each event (http or https).'),
    ),
    secret: v.pipe(
      v.optional(
        v.pipe(v.string(), v.check(isWebhookSecret, 'Must be whsec_ followed by base64 of 24 to 64 bytes.')),
      ),
      v.description('Signing secret (whsec_...). Generated at install when not given; write-only.'),
    ),
    events: v.optional(v.pipe(v.array(v.picklist(EVENTS)), v.minLength(1)), [...EVENTS]),
    includeExternal: v.pipe(
      v.optional(v.boolean(), true),
      v.description('Also send changes made outside the server (editor, git, sync).'),
    ),
    allowPrivateNetwork: v.pipe(
      v.optional(v.boolean(), false),
      v.description('Allow loopback and private addresses (e.g. a receiver on this machine).'),
    ),
    retryDelaysMs: v.pipe(
      v.optional(
        v.pipe(
          v.array(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(86_400_000))),
          v.maxLength(10),
        ),
        [5_000, 30_000, 120_000, 600_000, 1_800_000],
      ),
      v.description('Waits before each retry, in ms; its length is the number of retries.'),
    ),
    timeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(60_000)), 10_000),
    maxQueue: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)), 1_000),
  }),
  v.forward(
    v.check((c) => c.urls.length === 0 || c.secret !== undefined, 'A secret is required to send.'),
    ['secret'],
  ),
  v.forward(
    v.check(
      (c) => c.allowPrivateNetwork || !c.urls.some(isPrivateLiteralUrl),
      'A private or loopback address needs allowPrivateNetwork: true.',
    ),
    ['urls'],
  ),
);

/** One attempt as `runtime` shows it (the endpoint's origin only: paths and queries can hold tokens). */
interface DeliveryRecord {
  messageId: string;
  event: string;
  path: string;
  endpoint: string;
  attempt: number;
  outcome: 'delivered' | 'retrying' | 'failed' | 'refused' | 'dropped';
  status: number | null;
  error?: string;
  at: string;
}

interface Stats {
  delivered: number;
  failed: number;
  retries: number;
  refused: number;
  dropped: number;
  recent: DeliveryRecord[];
}

const emptyStats = (): Stats => ({ delivered: 0, failed: 0, retries: 0, refused: 0, dropped: 0, recent: [] });

/** The built-in `outbound-webhooks` plugin. */
export const outboundWebhooks = definePlugin({
  id: 'outbound-webhooks',
  name: 'Outbound webhooks',
  version: '1.0.0',
  description:
    'POSTs a signed JSON message (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature) to your URLs when a note is created, updated, moved or deleted; retries with backoff.',
  capabilities: ['hooks', 'network'],
  configSchema: Config,
  secrets: { secret: { generate: generateWebhookSecret } },
  destinations: (c) => c.urls.map((u) => new URL(u).origin),
  async activate(ctx) {
    const { config, clock } = ctx;
    const loaded = (await ctx.data.get()) as Partial<Stats> | null;
    const stats: Stats = { ...emptyStats(), ...(loaded ?? {}) };
    let saving: Promise<void> = Promise.resolve();
    const save = () => {
      saving = saving.then(() => ctx.data.put(stats)).catch((err) => ctx.reportError('save deliveries', err));
    };
    const note = (job: DeliveryJob, outcome: DeliveryRecord['outcome'], r?: AttemptResult) => {
      const rec: DeliveryRecord = {
        messageId: job.id,
        event: job.event,
        path: job.path,
        endpoint: new URL(job.url).origin,
        attempt: job.attempt,
        outcome,
        status: r && 'status' in r ? r.status : null,
        at: new Date(clock.now()).toISOString(),
      };
      if (r && !r.ok) rec.error = r.error;
      stats.recent = [rec, ...stats.recent].slice(0, RECENT);
      save();
    };

    const send = async (job: DeliveryJob, signal: AbortSignal): Promise<AttemptResult> => {
      const problem = await egressProblem(job.url, {
        allowPrivate: config.allowPrivateNetwork,
        resolveHost: ctx.resolveHost,
      });
      if (problem)
        return { ok: false, retry: false, status: null, error: `refused: ${problem}`, refused: true };
      const timestamp = Math.floor(clock.now() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': `Quire-Webhooks/${ctx.version}`,
        'webhook-id': job.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signWebhook(config.secret!, job.id, timestamp, job.body),
      };
      try {
        const res = await ctx.fetch(job.url, {
          method: 'POST',
          headers,
          body: job.body,
          redirect: 'manual',
          signal: AbortSignal.any([signal, AbortSignal.timeout(config.timeoutMs)]),
        });
        await res.body?.cancel().catch(() => {});
        if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
        const retry = res.status >= 500 || res.status === 408 || res.status === 429;
        return { ok: false, retry, status: res.status, error: `answered ${res.status}` };
      } catch (err) {
        const timeout = (err as Error)?.name === 'TimeoutError';
        return { ok: false, retry: true, status: null, error: timeout ? 'timed out' : 'could not connect' };
      }
    };

    const queue = createDeliveryQueue({
      send,
      retryDelaysMs: config.retryDelaysMs,
      maxQueue: config.maxQueue,
      concurrency: 4,
      onAttempt(job, r, final) {
        if (r.ok) stats.delivered++;
        else if (!r.ok && r.refused) stats.refused++;
        else if (final) stats.failed++;
        else stats.retries++;
        const outcome = r.ok ? 'delivered' : r.refused ? 'refused' : final ? 'failed' : 'retrying';
        note(job, outcome, r);
        if (!r.ok && final) ctx.reportError('delivery', new Error(`${new URL(job.url).origin}: ${r.error}`));
      },
    });

    const onEvent = (e: NoteEvent) => {
      if (e.external && !config.includeExternal) return;
      const body = JSON.stringify({
        type: `note.${e.type}`,
        timestamp: new Date(clock.now()).toISOString(),
        data:
          e.type === 'moved'
            ? { path: e.path, from: e.from, external: e.external }
            : { path: e.path, external: e.external },
      });
      for (const url of config.urls) {
        const job: DeliveryJob = {
          id: `msg_${toHex(ctx.random(12))}`,
          url,
          event: e.type,
          path: e.path,
          body,
          attempt: 1,
        };
        if (!queue.push(job)) {
          stats.dropped++;
          note(job, 'dropped');
        }
      }
    };

    return {
      hooks: Object.fromEntries(config.events.map((t) => [t, onEvent])),
      stats: () => ({ queued: queue.size(), inFlight: queue.inFlight(), ...stats }),
      async stop() {
        queue.stop();
        await saving;
      },
    };
  },
});
