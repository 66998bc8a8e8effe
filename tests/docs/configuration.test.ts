import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMIT_VARIABLES, loadRelayConfig, RelayConfigError } from '../../deploy/shared/config/relay.ts';
import { ConfigError, loadConfig } from '../../deploy/shared/config/server.ts';
import { CLI_VARIABLES, RELAY_VARIABLES, SERVER_VARIABLES } from '../../deploy/shared/config/variables.ts';
import { CONFIG_PAGE, configurationPage } from '../../deploy/shared/config-docs.ts';
import { ROOT } from '../helpers/child.ts';

const KNOWN = new Set([
  ...Object.keys(SERVER_VARIABLES),
  ...Object.keys(RELAY_VARIABLES),
  ...Object.keys(CLI_VARIABLES),
]);

/** Every variable name a source file reads from `env`. */
function variablesRead(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const names = new Set<string>();
  for (const re of [
    /\b(?:readInt|readBool|readEnum|readUrl|readStr|int|str|bool|oneOf|url)\(env, '([A-Z][A-Z0-9_]+)'/g,
    /\benv\.([A-Z][A-Z0-9_]+)/g,
    /\bprocess\.env\.([A-Z][A-Z0-9_]+)/g,
    // The values read through the table (readVariables).
    /\bvars\.([A-Z][A-Z0-9_]+)/g,
  ])
    for (const m of text.matchAll(re)) names.add(m[1]!);
  return [...names];
}

const sources = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(ROOT, dir, f));

describe('the configuration page', () => {
  it('is exactly what the variable tables generate (run npm run docs:config after changing them)', () => {
    expect(readFileSync(CONFIG_PAGE, 'utf8')).toBe(configurationPage());
  });

  it('names every variable the server, the relay and the CLI read', () => {
    const files = [
      ...sources('deploy/shared/config'),
      ...sources('deploy/node'),
      ...sources('deploy/node/cli'),
      ...sources('deploy/relay'),
    ];
    const unknown = files.flatMap((f) =>
      variablesRead(f)
        .filter((n) => !KNOWN.has(n))
        .map((n) => `${n} (${f.slice(ROOT.length)})`),
    );
    expect(unknown).toEqual([]);
    expect(variablesRead(join(ROOT, 'deploy/shared/config/server.ts'))).toEqual(
      expect.arrayContaining(['PORT', 'JWT_SECRET']),
    );
    expect(variablesRead(join(ROOT, 'deploy/shared/config/relay.ts'))).toEqual(
      expect.arrayContaining(['REDIS_URL', 'RELAY_QUEUE_KEY']),
    );
    for (const name of Object.keys(LIMIT_VARIABLES)) expect(Object.keys(RELAY_VARIABLES)).toContain(name);
  });

  it('the bounds it shows are the bounds validation enforces', () => {
    const context: Record<string, string> = { SERVICE_AUTH_MODE: 'jwt', JWT_SECRET: 'x'.repeat(32) };
    for (const [name, v] of Object.entries(SERVER_VARIABLES)) {
      if (v.kind !== 'int') continue;
      expect(() => loadConfig({ ...context, [name]: String(v.max + 1) }), name).toThrow(
        new ConfigError(`${name} must be between ${v.min} and ${v.max}, got ${v.max + 1}.`),
      );
      expect(() => loadConfig({ ...context, [name]: String(v.max) }), name).not.toThrow();
      if (v.min > 0) expect(() => loadConfig({ ...context, [name]: String(v.min - 1) }), name).toThrow(name);
    }
    for (const [name, v] of Object.entries(RELAY_VARIABLES)) {
      if (v.kind !== 'int') continue;
      expect(() => loadRelayConfig({ [name]: String(v.max + 1) }), name).toThrow(RelayConfigError);
      expect(() => loadRelayConfig({ [name]: String(v.max + 1) }), name).toThrow(name);
    }
    for (const [name, v] of Object.entries(SERVER_VARIABLES)) {
      if (v.kind !== 'enum') continue;
      expect(() => loadConfig({ [name]: 'nonsense' }), name).toThrow(
        `${name} must be one of ${v.values.join(', ')}`,
      );
    }
  });

  it('the defaults it shows are the defaults in force', () => {
    const c = loadConfig({}, '/srv');
    expect(c.port).toBe(SERVER_VARIABLES.PORT.def);
    expect(c.host).toBe(SERVER_VARIABLES.HOST.def);
    expect(c.dataDir).toBe('/srv/data');
    expect(c.maxBodyBytes).toBe(SERVER_VARIABLES.MAX_BODY_BYTES.def);
    expect(c.relayPort).toBe(SERVER_VARIABLES.RELAY_PORT.def);
    expect(c.agent.timeoutMs).toBe(SERVER_VARIABLES.AGENT_TIMEOUT_MS.def);
    expect(c.channels.telegramApiBaseUrl).toBe(SERVER_VARIABLES.TELEGRAM_API_BASE_URL.def);
    const r = loadRelayConfig({});
    expect(r.host).toBe(RELAY_VARIABLES.RELAY_HOST.def);
    expect(r.port).toBe(RELAY_VARIABLES.RELAY_PORT.def);
    expect(r.limits.answerTimeoutMs).toBe(RELAY_VARIABLES.RELAY_ANSWER_TIMEOUT_MS.def);
  });

  it('the README and the docs name only variables the tables know', () => {
    // Every page with a variable table but the generated one, which the test above checks.
    const pages = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
      );
    const text = ['README.md', ...pages('docs')]
      .filter((f) => join(ROOT, f) !== CONFIG_PAGE)
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n\n');
    const named: string[] = [];
    let inTable = false;
    for (const line of text.split('\n')) {
      if (/^\|\s*Variable\s*\|/.test(line)) inTable = true;
      else if (!line.startsWith('|')) inTable = false;
      else if (inTable)
        for (const m of (line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)) named.push(m[1]!);
    }
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((n) => !KNOWN.has(n))).toEqual([]);
  });
});

describe('the one configuration module (deploy/shared/config)', () => {
  it('is runtime-neutral: no node:* import, so the Worker, Bun and Deno read it as Node does', () => {
    for (const f of sources('deploy/shared/config'))
      expect(readFileSync(f, 'utf8'), f).not.toMatch(/from ['"]node:|import\(['"]node:/);
  });

  it('the server and the relay accept the same words for booleans, with the one error type', () => {
    for (const [word, on] of [
      ['yes', true],
      ['on', true],
      ['TRUE', true],
      ['no', false],
      ['off', false],
      ['0', false],
    ] as const) {
      expect(loadConfig({ TRUST_PROXY: word }).trustProxy, word).toBe(on);
      expect(loadRelayConfig({ RELAY_TRUST_PROXY: word }).trustProxy, word).toBe(on);
    }
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow(ConfigError);
    expect(() => loadRelayConfig({ RELAY_TRUST_PROXY: 'maybe' })).toThrow(ConfigError);
    expect(RelayConfigError).toBe(ConfigError);
  });

  it('resolves relative paths against the working folder without node:path', () => {
    expect(loadConfig({ DATA_DIR: '../x/./d' }, '/srv/q').dataDir).toBe('/srv/x/d');
    expect(loadConfig({ DATA_DIR: '/abs/', VAULT_DIR: 'v' }, '/srv').vaultDir).toBe('/srv/v');
  });
});
