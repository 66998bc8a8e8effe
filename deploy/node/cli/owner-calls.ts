import { createQuireClient } from '../../../sdk/index.ts';
import { fetchWithin, type Io, serverUrlFrom, UsageError } from './common.ts';
import { unreachable } from './setup.ts';

/**
 * What a command that asks the running server as its owner needs: the typed client with the key
 * in QUIRE_API_KEY (a usage error without it), `wrap` to turn a server that cannot be reached into
 * one sentence, and `print` for `--json` or the text.
 */
export function ownerCalls(io: Io, values: { url?: string; json?: boolean }) {
  const apiKey = io.env.QUIRE_API_KEY?.trim();
  if (!apiKey) throw new UsageError("Set QUIRE_API_KEY to the owner's key of the server.");
  const url = serverUrlFrom(io.env, values.url);
  return {
    api: createQuireClient({ baseUrl: url, apiKey, fetch: fetchWithin(10_000) }),
    wrap: <T>(p: Promise<T>) => p.catch((err) => unreachable(url, err)),
    print: (data: unknown, text: string) =>
      io.out(values.json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`),
  };
}
