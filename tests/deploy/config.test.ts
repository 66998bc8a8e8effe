/**
 * The readers derived from the variable table (deploy/shared/config): every kind's schema and its
 * one-line message, the defaults of the table parsing through their own schemas (property), secrets
 * never echoed, and the one reader over a plain record for the server, the relay and the CLI.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  defaultText,
  KINDS,
  readVariables,
  schemaOf,
  type VariableSpec,
} from '../../deploy/shared/config/read.ts';
import { loadRelayConfig } from '../../deploy/shared/config/relay.ts';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import {
  CLI_VARIABLES,
  RELAY_VARIABLES,
  SERVER_VARIABLES,
  type Variable,
} from '../../deploy/shared/config/variables.ts';

const TABLES = { server: SERVER_VARIABLES, relay: RELAY_VARIABLES, cli: CLI_VARIABLES } as Record<
  string,
  Record<string, Variable>
>;
const ENTRIES = Object.entries(TABLES).flatMap(([program, t]) =>
  Object.entries(t).map(([name, spec]) => ({ program, name, spec })),
);
const parse = (name: string, spec: VariableSpec, raw: unknown) => v.parse(schemaOf(name, spec), raw);
const messageOf = (name: string, spec: VariableSpec, raw: unknown) => {
  const r = v.safeParse(schemaOf(name, spec), raw);
  return r.success ? null : r.issues[0].message;
};

/** [kind, program, env, the one line it is refused with]. */
const REFUSALS: [VariableSpec['kind'], 'server' | 'relay', Record<string, string>, string][] = [
  ['int', 'server', { PORT: 'x1' }, 'PORT must be a whole number, got "x1".'],
  ['int', 'server', { PORT: '-1' }, 'PORT must be a whole number, got "-1".'],
  ['int', 'server', { PORT: '65536' }, 'PORT must be between 0 and 65535, got 65536.'],
  ['bool', 'server', { TRUST_PROXY: 'maybe' }, 'TRUST_PROXY must be true or false (1/0), got "maybe".'],
  [
    'enum',
    'server',
    { LOG_LEVEL: 'loud' },
    'LOG_LEVEL must be one of debug, info, warn, error, silent; got "loud".',
  ],
  [
    'url',
    'server',
    { PUBLIC_URL: 'notes.example.com' },
    'PUBLIC_URL must be an absolute URL such as https://notes.example.com, got "notes.example.com".',
  ],
  ['url', 'server', { PUBLIC_URL: 'ftp://notes.example.com' }, 'PUBLIC_URL must use http or https.'],
  [
    'url',
    'server',
    { PUBLIC_URL: 'https://me:hunter2@notes.example.com' },
    'PUBLIC_URL must not carry a query, fragment or user.',
  ],
  [
    'origins',
    'server',
    { CORS_ORIGINS: 'https://a.example.com, *' },
    'CORS_ORIGINS must list exact origins; "*" is not allowed.',
  ],
  [
    'origins',
    'server',
    { CORS_ORIGINS: 'https://a.example.com,app' },
    'CORS_ORIGINS[1] must be an absolute URL such as https://notes.example.com, got "app".',
  ],
  ['host', 'server', { HOST: 'my host' }, 'HOST must be a host name or address, got "my host".'],
  ['host', 'relay', { RELAY_HOST: 'http://x' }, 'RELAY_HOST must be a host name or address, got "http://x".'],
  ['secret', 'relay', { REDIS_URL: 'localhost:6379' }, 'REDIS_URL must start with redis:// or rediss://.'],
  [
    'secret',
    'relay',
    { RELAY_QUEUE_KEY: 'too-short-a-key' },
    'RELAY_QUEUE_KEY must be at least 32 characters (e.g. openssl rand -base64 32).',
  ],
];

describe('each kind of variable (deploy/shared/config/read.ts)', () => {
  it.each(REFUSALS)('%s: %s refuses %j with one line naming the variable', (_kind, program, env, line) => {
    const load = program === 'server' ? () => loadConfig(env) : () => loadRelayConfig(env);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new ConfigError(line));
  });

  it('every kind that can refuse a value has its message tested; text, path and list take any text', () => {
    const refusing = new Set(REFUSALS.map(([k]) => k));
    for (const kind of Object.keys(KINDS)) {
      if (['text', 'path', 'list'].includes(kind)) continue;
      expect([kind, refusing.has(kind as VariableSpec['kind'])]).toEqual([kind, true]);
    }
    for (const kind of ['text', 'path', 'list'] as const)
      fc.assert(fc.property(fc.string(), (s) => messageOf('X', { kind }, s) === null));
  });

  it('a value that is not text (a Worker binding of another type) is refused by name', () => {
    expect(messageOf('PORT', SERVER_VARIABLES.PORT, 8080)).toBe('PORT must be text.');
  });

  it('never echoes a secret: a refused secret value is not in the message (property)', () => {
    const secrets = ENTRIES.filter(({ spec }) => spec.kind === 'secret');
    expect(secrets.map((e) => e.name)).toEqual(
      expect.arrayContaining(['JWT_SECRET', 'REDIS_URL', 'RELAY_QUEUE_KEY', 'AGENT_API_KEY']),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...secrets),
        // Characters no message has, so finding the value in a message means it was echoed.
        fc.constantFrom('', 'redis://'),
        fc.string({ unit: fc.constantFrom('§', 'Ж', 'ø', '¤', ' '), minLength: 4, maxLength: 40 }),
        ({ name, spec }, start, rest) => {
          const value = `${start}${rest}`;
          const message = messageOf(name, spec, value);
          if (message && rest.trim()) expect(message).not.toContain(rest.trim());
        },
      ),
    );
  });

  it('reads the booleans and choices in any case, and trims every value', () => {
    expect(parse('B', { kind: 'bool', def: false }, ' YES ')).toBe(true);
    expect(parse('B', { kind: 'bool', def: true }, 'Off')).toBe(false);
    expect(parse('E', { kind: 'enum', values: ['a', 'b'], def: 'a' }, ' B')).toBe('b');
    expect(parse('U', { kind: 'url' }, ' https://x.example.com/a/ ')).toBe('https://x.example.com/a');
    expect(parse('L', { kind: 'list' }, ' a, ,b:1 ,')).toEqual(['a', 'b:1']);
    expect(parse('O', { kind: 'origins' }, 'https://a.example.com/x, http://b:5173')).toEqual([
      'https://a.example.com',
      'http://b:5173',
    ]);
  });
});

describe('the table and its schemas (property)', () => {
  it('each entry that has a default: unset, empty and blank read as it, and its text parses to it', () => {
    const withDefault = ENTRIES.filter(({ spec }) => defaultText(spec) !== undefined);
    expect(withDefault.length).toBeGreaterThan(60);
    fc.assert(
      fc.property(
        fc.constantFrom(...withDefault),
        fc.constantFrom(undefined, '', '  '),
        ({ name, spec }, unset) => {
          const def = 'def' in spec ? spec.def : undefined;
          expect([name, parse(name, spec, unset)]).toEqual([name, def]);
          expect([name, parse(name, spec, defaultText(spec))]).toEqual([name, def]);
        },
      ),
    );
  });

  it('each whole-number entry takes every value within its bounds and refuses one beyond', () => {
    const ints = ENTRIES.filter(({ spec }) => spec.kind === 'int') as {
      name: string;
      spec: Extract<Variable, { kind: 'int' }>;
    }[];
    fc.assert(
      fc.property(
        fc.constantFrom(...ints),
        fc.double({ min: 0, max: 1, noNaN: true }),
        ({ name, spec }, at) => {
          const n = Math.round(spec.min + at * (spec.max - spec.min));
          expect(parse(name, spec, String(n))).toBe(n);
          expect(messageOf(name, spec, String(spec.max + 1))).toBe(
            `${name} must be between ${spec.min} and ${spec.max}, got ${spec.max + 1}.`,
          );
        },
      ),
    );
  });

  it('each choice entry takes each of its values in any case', () => {
    const enums = ENTRIES.filter(({ spec }) => spec.kind === 'enum') as {
      name: string;
      spec: Extract<Variable, { kind: 'enum' }>;
    }[];
    fc.assert(
      fc.property(fc.constantFrom(...enums), fc.nat(), fc.boolean(), ({ name, spec }, i, upper) => {
        const value = spec.values[i % spec.values.length]!;
        expect(parse(name, spec, upper ? value.toUpperCase() : value)).toBe(value);
      }),
    );
  });
});

describe('one reader over a plain record', () => {
  it('reads the CLI, the relay and the server with the same readVariables', () => {
    expect(
      readVariables(CLI_VARIABLES, { QUIRE_URL: 'http://127.0.0.1:3000/', QUIRE_API_KEY: ' k ' }),
    ).toEqual({
      QUIRE_URL: 'http://127.0.0.1:3000',
      QUIRE_API_KEY: 'k',
    });
    expect(readVariables(RELAY_VARIABLES, { RELAY_PORT: '9' }, ['RELAY_PORT', 'RELAY_HOST'])).toEqual({
      RELAY_PORT: 9,
      RELAY_HOST: '0.0.0.0',
    });
    expect(readVariables(SERVER_VARIABLES, {}, ['RELAY_HOST'])).toEqual({ RELAY_HOST: undefined });
  });

  it("ignores what is not in the table (a Worker's other bindings, Deno.env.toObject())", () => {
    const bindings = { PORT: '4000', NOTES: { get() {} }, ASSETS: 42 } as unknown as Record<string, string>;
    expect(loadConfig(bindings, '/srv').port).toBe(4000);
    expect(loadRelayConfig(bindings).port).toBe(8787);
  });

  it('checks every variable at start, as docs/reference/configuration.md says, not only those the mode uses', () => {
    expect(() => loadConfig({ SERVICE_AUTH_MODE: 'api-key', JWT_TTL_SECONDS: '5' })).toThrow(
      new ConfigError('JWT_TTL_SECONDS must be between 30 and 86400, got 5.'),
    );
    expect(() => loadConfig({ RATE_LIMIT: '0', RATE_LIMIT_FAILURES: 'many' })).toThrow(/RATE_LIMIT_FAILURES/);
  });
});
