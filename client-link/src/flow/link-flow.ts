/**
 * The /link flow's eight steps, in order, as plain TypeScript over injected browser parts
 * (fetch, storage, the address bar), so every step and every failure is tested without a browser.
 */
import { exchangeCode, markLinked, verifyKey } from './api.ts';
import { explain, type FailureCode, type LinkFailure, Stop } from './failures.ts';
import { normalizeServerUrl, type UrlProblem } from './normalize.ts';
import {
  type LinkProblem,
  type LinkRequest,
  parseLinkQuery,
  strippedUrl,
  validateCredentials,
} from './parse.ts';
import { type Profile, type ProfileStore, profileIdentity } from './profiles.ts';
import { redact } from './redact.ts';
import type { StepId, StepState } from './steps.ts';

/** The steps with the labels the page shows. */
export const STEPS: readonly { id: StepId; label: string }[] = [
  { id: 'parse', label: 'Reading the link' },
  { id: 'exchange', label: 'Exchanging the pairing code at the relay' },
  { id: 'validate', label: 'Checking the server address and key' },
  { id: 'normalize', label: 'Normalizing the server address' },
  { id: 'verify', label: 'Verifying the key with the server' },
  { id: 'link', label: 'Completing setup' },
  { id: 'persist', label: 'Saving this server on this device' },
  { id: 'redirect', label: 'Opening your notes' },
];

export type { FailureCode, LinkFailure } from './failures.ts';

export type LinkOutcome = { ok: true; profile: Profile } | { ok: false; failure: LinkFailure };

export interface LinkFlowDeps {
  fetch: typeof fetch;
  profiles: ProfileStore;
  /** The page's address when the flow starts. */
  href: string;
  /** `history.replaceState` with a path. */
  replaceUrl(path: string): void;
  /** Goes to the workspace. */
  redirect(path: string): void;
  /** Progress for the page. */
  onStep?(step: StepId, state: StepState): void;
  /** Relay used when a relay link names none (the relay the server serving this page uses). */
  defaultRelayUrl?: string | null;
  /** Per-call time-out (default 15 s). */
  timeoutMs?: number;
  /** ISO time for `linkedAt`. */
  now?: () => Date;
}

/** Runs the flow for the link in `deps.href`: steps 1 to 8. */
export async function runLinkFlow(deps: LinkFlowDeps): Promise<LinkOutcome> {
  let request: LinkRequest | null = null;
  const secrets: string[] = [];
  step(deps, 'parse', 'running');
  try {
    request = parseLinkQuery(new URL(deps.href).search);
  } catch (err) {
    // The address bar is cleaned whatever the link held, before anything else happens.
    deps.replaceUrl(strippedUrl(deps.href));
    const prefill = new URL(deps.href).searchParams.get('serverUrl') ?? '';
    const p = err as LinkProblem;
    step(deps, 'parse', 'failed');
    return fail('parse', p.code, redact(p.message), prefill);
  }
  deps.replaceUrl(strippedUrl(deps.href));
  step(deps, 'parse', 'done');

  let serverUrl = '';
  let apiKey = '';
  let relayUrl: string | null = null;
  if (request.mode === 'relay') {
    secrets.push(request.relayCode);
    step(deps, 'exchange', 'running');
    try {
      const raw = request.relayUrl ?? deps.defaultRelayUrl;
      if (!raw) throw new Stop('MISSING_PARAMS', 'This link has a pairing code but no relay address.');
      try {
        relayUrl = normalizeServerUrl(raw);
      } catch (e) {
        throw new Stop('MALFORMED_PARAMS', `The relay address is not usable: ${(e as Error).message}`);
      }
      const got = await exchangeCode(deps.fetch, relayUrl, request.relayCode, deps.timeoutMs);
      serverUrl = got.serverUrl;
      apiKey = got.apiKey;
      secrets.push(apiKey);
    } catch (err) {
      step(deps, 'exchange', 'failed');
      const s = explain(err, 'relay');
      return fail('exchange', s.code, redact(s.message, secrets), '');
    }
    step(deps, 'exchange', 'done');
  } else {
    step(deps, 'exchange', 'skipped');
    serverUrl = request.serverUrl;
    apiKey = request.apiKey;
    secrets.push(apiKey);
  }
  return finish(deps, { serverUrl, apiKey, relayUrl, mode: request.mode }, secrets);
}

/** Manual entry: steps 3 to 8 with what a person typed. */
export function runManualLink(
  deps: Omit<LinkFlowDeps, 'href' | 'replaceUrl'>,
  input: { serverUrl: string; apiKey: string },
): Promise<LinkOutcome> {
  const apiKey = input.apiKey.trim();
  const mode = /\/r\/[^/]+\/?$/.test(input.serverUrl.trim()) ? 'relay' : 'direct';
  return finish(deps, { serverUrl: input.serverUrl, apiKey, relayUrl: null, mode }, [apiKey]);
}

async function finish(
  deps: Omit<LinkFlowDeps, 'href' | 'replaceUrl'>,
  got: { serverUrl: string; apiKey: string; relayUrl: string | null; mode: 'direct' | 'relay' },
  secrets: string[],
): Promise<LinkOutcome> {
  let current: StepId = 'validate';
  let serverUrl = got.serverUrl.trim();
  try {
    step(deps, 'validate', 'running');
    try {
      validateCredentials(serverUrl, got.apiKey);
    } catch (e) {
      throw new Stop((e as LinkProblem).code, (e as Error).message);
    }
    step(deps, 'validate', 'done');

    current = 'normalize';
    step(deps, current, 'running');
    try {
      serverUrl = normalizeServerUrl(serverUrl);
    } catch (e) {
      throw new Stop('BAD_URL', (e as UrlProblem).message);
    }
    step(deps, current, 'done');

    current = 'verify';
    step(deps, current, 'running');
    const verified = await verifyKey(deps.fetch, serverUrl, got.apiKey, deps.timeoutMs).catch((e) => {
      throw explain(e, 'server');
    });
    step(deps, current, 'done');

    current = 'link';
    if (verified.setupComplete) {
      step(deps, current, 'skipped');
    } else {
      step(deps, current, 'running');
      await markLinked(deps.fetch, serverUrl, got.apiKey, deps.timeoutMs).catch((e) => {
        throw explain(e, 'server');
      });
      step(deps, current, 'done');
    }

    current = 'persist';
    step(deps, current, 'running');
    const { id, name } = profileIdentity(verified.serverId, serverUrl, got.mode);
    const profile: Profile = {
      id,
      name,
      serverId: verified.serverId,
      serverUrl,
      apiKey: got.apiKey,
      mode: got.mode,
      relayUrl: got.relayUrl,
      linkedAt: (deps.now?.() ?? new Date()).toISOString(),
    };
    try {
      deps.profiles.save(profile);
    } catch {
      throw new Stop(
        'STORAGE_FAILED',
        'This browser refused to save the server (private mode or full storage?).',
      );
    }
    step(deps, current, 'done');

    current = 'redirect';
    step(deps, current, 'running');
    deps.redirect('/workspace');
    step(deps, current, 'done');
    return { ok: true, profile };
  } catch (err) {
    step(deps, current, 'failed');
    const s = err instanceof Stop ? err : explain(err, 'server');
    const prefill = current === 'validate' || current === 'normalize' ? got.serverUrl.trim() : serverUrl;
    return fail(current, s.code, redact(s.message, secrets), prefill);
  }
}

function step(deps: Pick<LinkFlowDeps, 'onStep'>, id: StepId, state: StepState) {
  deps.onStep?.(id, state);
}

function fail(step: StepId, code: FailureCode, message: string, serverUrl: string): LinkOutcome {
  return { ok: false, failure: { step, code, message, prefill: { serverUrl: redact(serverUrl) } } };
}
