import type { AuthMode } from './auth/authenticator.ts';

/** What the setup payload is built from, besides the credentials. */
export interface SetupConfig {
  version: string;
  authMode: AuthMode;
  pairingMode: 'relay' | 'open-port';
  /** Public base address of the relay (no trailing slash); null in open-port mode. */
  relayUrl: string | null;
  host: string;
  port: number;
  cors: string[];
  /** Bases of the connect links; null means the server's own URL (it serves the client). */
  clientUrl: string | null;
  testClientUrl: string | null;
  localDevUiUrl: string;
}

/** The credentials part of the payload. */
export interface SetupSnapshot {
  serverId: string;
  setupComplete: boolean;
  /** The full first key while setup is incomplete, the redacted form after. */
  apiKey: string;
  /** The current pairing code, or null (open-port mode, or setup complete). */
  relayCode: string | null;
}

const link = (base: string, params: Record<string, string | null>): string => {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/link`;
  url.search = '';
  url.hash = '';
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
  return url.toString();
};

/** `GET /api/v1/system/setup` data, field for field as the spec's table. */
export function buildSetupPayload(cfg: SetupConfig, snap: SetupSnapshot, serverUrl: string) {
  const relay = cfg.pairingMode === 'relay' && cfg.relayUrl ? cfg.relayUrl : null;
  const direct = `${serverUrl}/api/v1`;
  const relayApiBase = relay ? `${relay}/r/${encodeURIComponent(snap.serverId)}/api/v1` : null;
  const params: Record<string, string | null> = relay
    ? { relayCode: snap.relayCode, relayUrl: relay }
    : { serverUrl, apiKey: snap.setupComplete ? null : snap.apiKey };
  const connect: Record<string, string> = {
    testHostedClient: link(cfg.testClientUrl ?? serverUrl, params),
    hostedClient: link(cfg.clientUrl ?? serverUrl, params),
  };
  if (relay) connect.localDevUi = link(cfg.localDevUiUrl, params);
  const payload: Record<string, unknown> = {
    serverId: snap.serverId,
    apiKey: snap.apiKey,
    setupComplete: snap.setupComplete,
    version: cfg.version,
    auth: {
      method: cfg.authMode,
      header: 'X-Service-Key',
      note: 'Send the API key in the X-Service-Key header on every protected endpoint.',
    },
    pairing: { mode: cfg.pairingMode, relayCode: relay ? snap.relayCode : null, relayUrl: relay },
    server: { url: serverUrl, port: cfg.port, host: cfg.host, cors: cfg.cors },
    links: {
      setupApi: `${serverUrl}/api/v1/system/setup`,
      health: `${serverUrl}/api/v1/health`,
      apiBase: relayApiBase ?? direct,
      directApiBase: direct,
      relayApiBase,
      connect,
    },
  };
  if (!snap.setupComplete) {
    payload.instructions = [
      'Copy the API key (apiKey) now: this endpoint shows it only until the first client links.',
      'Open one of the links in links.connect on the device you want to connect; it fills everything in.',
      'If the link does not prefill, enter the server address and the API key by hand in the client.',
      'The client then calls POST /api/v1/auth/link; from then on this endpoint shows the key redacted.',
    ];
  }
  return payload;
}
