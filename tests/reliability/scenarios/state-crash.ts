/**
 * Crash safety of state files: a note server child under a burst of state changes (device keys
 * minted and revoked, pairing codes rotated, notes created so the index cache is rewritten) is
 * killed with SIGKILL at a random moment, sometimes right after its index became ready (when it
 * saves the index cache). After every restart: the server starts, every state file exists and
 * parses, no temporary file is left, the serverId and the first key are the ones of the first
 * boot (never a new first key), every acknowledged new key works and every acknowledged
 * revocation holds.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateVault } from '../../../bench/generate-vault.ts';
import { httpClient, type Outcome } from './http.ts';
import { killDuringBurst, type ServerProc, startServerProc } from './procs.ts';
import { createRng, subSeed } from './rng.ts';
import { checkStateFiles, STATE_FILES, type StateFileSpec, stateTempFiles } from './state-files.ts';

/** Options of `stateCrash`. */
export interface StateCrashOptions {
  seed: number;
  killPoints: number;
  workers?: number;
  /** Notes generated into the vault first, so the index cache is a real file (default 300). */
  notes?: number;
  /** The state files to check (default: this branch's). */
  specs?: StateFileSpec[];
  log?: (line: string) => void;
}

/** What a run did and what it found wrong. */
export interface StateCrashResult {
  seed: number;
  killPoints: number;
  ops: number;
  acknowledged: number;
  cut: number;
  keysChecked: number;
  /** Temporary files the kills left in DATA_DIR (each must be gone after the restart). */
  leftovers: number;
  /** The state files found and checked at least once. */
  filesChecked: string[];
  violations: string[];
}

interface KeyModel {
  id: string | null;
  apiKey: string | null;
  /** valid: acknowledged mint; revoked: acknowledged revoke; unknown: cut by a kill. */
  state: 'valid' | 'revoked' | 'unknown';
}

/** Runs `opts.killPoints` kill-and-restart rounds; see the file comment. */
export async function stateCrash(opts: StateCrashOptions): Promise<StateCrashResult> {
  const workers = opts.workers ?? 4;
  const specs = opts.specs ?? STATE_FILES;
  const log = opts.log ?? (() => {});
  const root = await mkdtemp(join(tmpdir(), 'quire-crash-state-'));
  const dataDir = join(root, 'data');
  const vault = join(dataDir, 'notes');
  await mkdir(vault, { recursive: true });
  await generateVault({ dir: vault, notes: opts.notes ?? 300, seed: opts.seed });
  const env = { DATA_DIR: dataDir, PAIRING_MODE: 'open-port', RATE_LIMIT: '0' };
  const result: StateCrashResult = {
    seed: opts.seed,
    killPoints: opts.killPoints,
    ops: 0,
    acknowledged: 0,
    cut: 0,
    keysChecked: 0,
    leftovers: 0,
    filesChecked: [],
    violations: [],
  };
  const client = httpClient({ keepAlive: true });
  const seen = new Set<string>();
  const keys: KeyModel[] = [];
  let server: ServerProc | null = null;
  try {
    server = await startServerProc(env, 'server-0');
    const setup = (await client.request('GET', `${server.url}/api/v1/system/setup`)).json.data;
    const firstKey = setup.apiKey as string;
    const serverId = setup.serverId as string;
    const creds = JSON.parse(await readFile(join(dataDir, 'credentials.json'), 'utf8'));
    const firstId = creds.keys[0].id as string;
    const api = (method: string, path: string, body?: unknown, key = firstKey) =>
      client.request(method, `${server!.url}/api/v1${path}`, { headers: { 'x-service-key': key }, body });

    for (let round = 0; round < opts.killPoints; round++) {
      const rng = createRng(subSeed(opts.seed, round));
      let killed = false;
      const count = (out: Outcome) => {
        result.ops++;
        if (out.status === 0) result.cut++;
        else if (out.status < 300) result.acknowledged++;
        else result.violations.push(`round ${round}: a state change answered ${out.status}`);
      };
      const writer = async (w: number) => {
        const wr = createRng(subSeed(opts.seed, round * 1000 + w + 1));
        let seq = 0;
        while (!killed) {
          const pick = wr.next();
          const live = keys.filter((k) => k.state === 'valid');
          if (pick < 0.45 || live.length === 0) {
            const k: KeyModel = { id: null, apiKey: null, state: 'unknown' };
            keys.push(k);
            const out = await api('POST', '/auth/keys', { name: `r${round}-w${w}-${seq++}` });
            count(out);
            if (out.status === 201)
              Object.assign(k, { id: out.json.data.id, apiKey: out.json.data.apiKey, state: 'valid' });
            if (out.status === 0) return;
          } else if (pick < 0.65) {
            const k = live[wr.int(0, live.length - 1)]!;
            k.state = 'unknown';
            const out = await api('DELETE', `/auth/keys/${k.id}`);
            count(out);
            if (out.status === 200) k.state = 'revoked';
            if (out.status === 0) return;
          } else if (pick < 0.8) {
            const out = await api('POST', '/auth/pair-code/rotate');
            count(out);
            if (out.status === 0) return;
          } else if (pick < 0.88) {
            // channels.json: create a web channel, or toggle or delete one.
            const list = (await api('GET', '/channels')).json?.data ?? [];
            const ch = list.length > 0 && wr.chance(0.5) ? list[wr.int(0, list.length - 1)] : null;
            const out = ch
              ? wr.chance(0.5)
                ? await api('POST', `/channels/${ch.id}/toggle`)
                : await api('DELETE', `/channels/${ch.id}`)
              : await api('POST', '/channels', { provider: 'web', name: `r${round}-w${w}-${seq++}` });
            count(out.status === 404 || out.status === 409 ? { ...out, status: 200 } : out);
            if (out.status === 0) return;
          } else if (pick < 0.93) {
            // plugins.json: install daily-notes (409 once installed) or toggle it.
            const out = wr.chance(0.5)
              ? await api('POST', '/plugins/install', { id: 'daily-notes' })
              : await api('POST', '/plugins/daily-notes/toggle', {});
            count(out.status === 404 || out.status === 409 ? { ...out, status: 200 } : out);
            if (out.status === 0) return;
          } else {
            const path = `state-test/r${round}-w${w}-${seq++}.md`;
            const out = await api('POST', '/notes', { path, content: `# ${path}\n[[Index]] #state` });
            count(out);
            if (out.status === 0) return;
          }
        }
      };
      // Half the kill points land right after the index is ready (the index cache is being saved).
      const early = rng.chance(0.5);
      const killAfter = early ? rng.int(0, 60) : rng.int(20, 400);
      const burst = early ? [] : Array.from({ length: workers }, (_, w) => writer(w));
      await killDuringBurst(
        server,
        killAfter,
        () => {
          killed = true;
        },
        burst,
      );
      log(
        `kill point ${round + 1}/${opts.killPoints}: SIGKILL ${killAfter} ms ${early ? 'after ready' : 'into the burst'}`,
      );

      const leftovers = await stateTempFiles(dataDir);
      result.leftovers += leftovers.length;
      try {
        server = await startServerProc(env, `server-${round + 1}`);
      } catch (err) {
        result.violations.push(
          `round ${round}: the server did not start again: ${String(err).split('\n')[0]}`,
        );
        return result;
      }
      for (const p of await checkStateFiles(dataDir, specs, seen, leftovers))
        result.violations.push(`round ${round}: ${p}`);
      const again = (await client.request('GET', `${server.url}/api/v1/system/setup`)).json.data;
      if (again.serverId !== serverId) result.violations.push(`round ${round}: the serverId changed`);
      if (again.apiKey !== firstKey)
        result.violations.push(`round ${round}: the setup payload shows another first key`);
      const now = JSON.parse(await readFile(join(dataDir, 'credentials.json'), 'utf8'));
      const firsts = now.keys.filter((k: { kind: string }) => k.kind === 'first');
      if (firsts.length !== 1 || firsts[0].id !== firstId)
        result.violations.push(`round ${round}: the first key record changed`);
      if ((await api('GET', '/auth/keys')).status !== 200)
        result.violations.push(`round ${round}: the first key no longer works`);
      for (const k of keys) {
        if (k.state === 'unknown' || !k.apiKey) continue;
        result.keysChecked++;
        const status = (await api('GET', '/auth/keys', undefined, k.apiKey)).status;
        const want = k.state === 'valid' ? 200 : 401;
        if (status !== want)
          result.violations.push(`round ${round}: key ${k.id} (${k.state}) answered ${status}, not ${want}`);
      }
      // Settle what the kill left open: a cut mint or revoke is whatever the server now says.
      const listed = new Set(
        ((await api('GET', '/auth/keys')).json?.data ?? []).map((k: { id: string }) => k.id),
      );
      for (const k of keys)
        if (k.state === 'unknown') k.state = k.id && listed.has(k.id) && k.apiKey ? 'valid' : 'revoked';
    }
    result.filesChecked = [...seen].sort();
    return result;
  } finally {
    client.close();
    await server?.kill();
    await rm(root, { recursive: true, force: true });
  }
}
