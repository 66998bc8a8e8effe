import { validateHeaderName, validateHeaderValue } from 'node:http';
import { clientAddressOf, relayedSocketAddress } from '../../http-kit/frame.ts';
import { foldedPairs, type HotExchange, type HotFrame, plainTarget } from '../../http-kit/hot-answer.ts';
import { whenAborted } from '../../http-kit/hot-route.ts';
import { requestIdOf } from '../../http-kit/request-id.ts';

/**
 * The frame the server's end of the tunnel answers relayed GETs and HEADs with: the hot routes and
 * rules of the server's Node dispatcher (deploy/node/server.ts builds both from one record), and
 * whether X-Forwarded-For is trusted (the app's `clientAddress` rule).
 */
export interface TunnelHotFrame extends HotFrame {
  trustProxy: boolean;
}

/** A lower-case header name (a token) and a value with no CR, LF or NUL: what a web Headers takes as it is. */
const LOWER_TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const BAD_VALUE = /[\0\r\n]|^[\t ]|[\t ]$/;

/**
 * A relayed request as a hot route sees it, straight from the tunnel's REQ frame (no web
 * Request is built): the same method, path, search and headers the app would see for
 * `new Request(origin + path)`. Null when the request is not one the hot routes are offered
 * (any other method, a target or header the URL parser or Headers would change or refuse): the
 * app answers it, exactly as before.
 */
export function tunnelHotRequest<Io extends TunnelHotIo>(
  method: string,
  target: string,
  headers: readonly [string, string][],
  frame: TunnelHotFrame,
  io: Io,
): TunnelHotExchange<Io> | null {
  if (method !== 'GET' && method !== 'HEAD') return null;
  const t = plainTarget(target);
  if (t === null) return null;
  for (const [k, v] of headers) if (!LOWER_TOKEN.test(k) || BAD_VALUE.test(v)) return null;
  return new TunnelHotRequest(method, t.path, t.search, headers, frame.trustProxy, io);
}

/**
 * How a hot request's answer leaves, and its abort signal: one object per request (the connector's
 * is a class, so a relayed request makes no closures for it: under tsx each named one is also a
 * `__name` call).
 */
export interface TunnelHotIo {
  /** False when nobody waits for the answer any more. */
  open(): boolean;
  write(status: number, headers: [string, string][], body: Uint8Array | null): void;
  cut(): void;
  /** The request's abort signal, made when a route asks for it. */
  signal(): AbortSignal;
}

/** A tunnel hot request, with the io it was made with. */
export interface TunnelHotExchange<Io extends TunnelHotIo = TunnelHotIo> extends HotExchange {
  readonly io: Io;
}

class TunnelHotRequest<Io extends TunnelHotIo> implements TunnelHotExchange<Io> {
  readonly started = performance.now();
  #id: string | undefined;
  #sent = false;
  constructor(
    readonly method: 'GET' | 'HEAD',
    readonly path: string,
    readonly search: string,
    readonly headers: readonly [string, string][],
    readonly trustProxy: boolean,
    readonly io: Io,
  ) {}

  requestId(): string {
    this.#id ??= requestIdOf(this.header('x-request-id'));
    return this.#id;
  }

  open(): boolean {
    return this.io.open();
  }

  headersSent(): boolean {
    return this.#sent;
  }

  write(status: number, lines: string[], body: Uint8Array | null): void {
    // What node:http's writeHead refuses (the dispatcher's answer) is refused here too, before anything goes.
    const pairs: [string, string][] = [];
    for (let i = 0; i < lines.length; i += 2) {
      const k = lines[i]!;
      const v = lines[i + 1]!;
      validateHeaderName(k);
      validateHeaderValue(k, v);
      pairs.push([k.toLowerCase(), v]);
    }
    this.#sent = true;
    this.io.write(status, pairs, body);
  }

  cut(): void {
    this.io.cut();
  }

  header(name: string): string | undefined {
    let out: string | undefined;
    for (const [k, v] of this.headers) if (k === name) out = out === undefined ? v : `${out}, ${v}`;
    return out;
  }

  headerPairs(): [string, string][] {
    return foldedPairs(this.headers);
  }

  address(): string | undefined {
    const xff = this.header('x-forwarded-for');
    return clientAddressOf(this.trustProxy, xff, () => relayedSocketAddress(xff));
  }

  signal(): AbortSignal {
    return this.io.signal();
  }

  whenGone(cb: () => void): () => void {
    return whenAborted(this.io.signal(), cb);
  }
}
