/** Answer compression: which encoding a client takes, and zlib where the runtime has it. */

type Zlib = typeof import('node:zlib');

let zlibModule: Zlib | null | undefined;

/**
 * `node:zlib` when the runtime has it (Node, Bun, Deno, workerd with nodejs_compat), else null:
 * answers are then sent uncompressed. Loaded on first use, so the HTTP adapter has no static
 * platform import.
 */
export async function loadZlib(): Promise<Zlib | null> {
  if (zlibModule === undefined) {
    try {
      zlibModule = await import('node:zlib');
    } catch {
      zlibModule = null;
    }
  }
  return zlibModule;
}

/** The encoding to answer `c` with: br, gzip or identity (always identity when the app does not compress). */
export function answerEncoding(c: {
  get: (key: 'compress') => boolean | undefined;
  req: { header: (name: string) => string | undefined };
}): 'br' | 'gzip' | 'identity' {
  return c.get('compress') === false ? 'identity' : pickEncoding(c.req.header('accept-encoding'));
}

/** The encoding to answer with for an `Accept-Encoding` header: br, gzip or identity. */
export function pickEncoding(header: string | undefined): 'br' | 'gzip' | 'identity' {
  if (!header) return 'identity';
  let br = false;
  let gzip = false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (name === 'br') br = true;
    else if (name === 'gzip' || name === 'x-gzip' || name === '*') gzip = true;
  }
  return br ? 'br' : gzip ? 'gzip' : 'identity';
}
