import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../deploy/shared/config/server.ts';
import { CLI_VARIABLES, RELAY_VARIABLES, SERVER_VARIABLES } from '../../deploy/shared/config/variables.ts';
import { publicRelayUrl } from '../../deploy/shared/node-parts.ts';
import { ROOT } from '../helpers/child.ts';

const run = promisify(execFile);
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');
const KNOWN = new Set([
  ...Object.keys(SERVER_VARIABLES),
  ...Object.keys(RELAY_VARIABLES),
  ...Object.keys(CLI_VARIABLES),
]);
/** Variables the deploy files set for the container itself, not for Quire. */
const CONTAINER_ONLY = new Set(['NODE_ENV', 'NODE_OPTIONS', 'HEALTH_PORT']);
const which = (bin: string) =>
  ['/usr/bin', '/usr/local/bin', '/bin'].map((d) => join(d, bin)).find((p) => existsSync(p));

describe('deploy/Dockerfile', () => {
  const text = read('deploy/Dockerfile');
  const lines = text.split('\n');

  it('passes dockerfilelint', () => {
    const lint = createRequire(import.meta.url)('dockerfilelint') as {
      run: (ctx: string, content: string) => unknown[];
    };
    expect(lint.run(join(ROOT, 'deploy'), text)).toEqual([]);
  });

  it('is a build stage plus a runtime stage, non-root, with a healthcheck and a /data volume', () => {
    const stages = lines.filter((l) => l.startsWith('FROM '));
    expect(stages.length).toBe(2);
    expect(stages[0]).toMatch(/-slim AS build$/);
    expect(stages[1]).toMatch(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim$/);
    const final = text.slice(text.lastIndexOf('\nFROM '));
    expect(final).toMatch(/\nUSER node\n/);
    expect(final).toMatch(/\nHEALTHCHECK .*\\\n\s+CMD \[.*\/api\/v1\/health/);
    expect(final).toContain('VOLUME ["/data"]');
    expect(final).toContain('DATA_DIR=/data');
    expect(final).toContain('ENTRYPOINT ["node", "bin/quire.js"]');
    expect(text).toMatch(/RUN npm run release/);
  });

  it('runs only the release artifact: the runtime stage copies nothing but the unpacked tarball', () => {
    const final = text.slice(text.lastIndexOf('\nFROM ')).split('\n');
    const copies = final.filter((l) => l.startsWith('COPY '));
    expect(copies).toEqual(['COPY --from=build /app ./']);
    expect(final.join('\n')).not.toMatch(/npm (ci|install)|tsx|node_modules/);
    // What the build stage unpacks into /app is the tarball npm run release writes.
    expect(text).toMatch(/tar xzf dist\/release\/quire-notes-server-\*\.tgz -C \/app --strip-components=1/);
  });
});

describe('deploy/compose.yaml', () => {
  const compose = parse(read('deploy/compose.yaml')) as {
    services: Record<string, any>;
    volumes: Record<string, unknown>;
  };

  it('runs the server, a relay and Redis, wired to each other, with health checks and volumes', () => {
    const { server, relay, redis } = compose.services;
    expect(Object.keys(compose.services).sort()).toEqual(['redis', 'relay', 'server']);
    expect(server.command).toEqual(['serve']);
    expect(relay.command).toEqual(['relay']);
    expect(server.environment.RELAY_URL).toBe(`http://relay:${relay.environment.RELAY_PORT}`);
    expect(relay.environment.REDIS_URL).toBe('redis://redis:6379');
    // Redis keeps an appendonly file: the relay must seal what it queues, so the key is required.
    expect(relay.environment.RELAY_QUEUE_KEY).toMatch(/^\$\{QUIRE_RELAY_QUEUE_KEY:\?/);
    expect(server.volumes).toContain('quire-data:/data');
    expect(server.depends_on.relay.condition).toBe('service_healthy');
    expect(relay.depends_on.redis.condition).toBe('service_healthy');
    expect(redis.healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(relay.environment.HEALTH_PORT).toBe(relay.environment.RELAY_PORT);
    expect(Object.keys(compose.volumes).sort()).toEqual(['quire-data', 'redis-data']);
  });

  it('has a deploy/.env.example naming every variable the compose file reads, the queue key first', () => {
    const example = read('deploy/.env.example');
    const used = new Set([...read('deploy/compose.yaml').matchAll(/\$\{(QUIRE_[A-Z_]+)/g)].map((m) => m[1]!));
    expect([...used]).toContain('QUIRE_RELAY_QUEUE_KEY');
    for (const name of used) expect(example, name).toMatch(new RegExp(`^# ${name}=`, 'm'));
    expect(read('.gitignore')).toMatch(/^deploy\/\.env$/m);
  });

  it('sets only variables Quire knows', () => {
    const names = Object.values(compose.services).flatMap((s) => Object.keys(s.environment ?? {}));
    expect(names.filter((n) => !KNOWN.has(n) && !CONTAINER_ONLY.has(n))).toEqual([]);
  });

  it('gives clients the relay public address while the server registers over the compose network', () => {
    const env = compose.services.server.environment as Record<string, string>;
    const config = loadConfig({
      ...env,
      PUBLIC_URL: 'http://localhost:3000',
      RELAY_PUBLIC_BASE_URL: 'http://localhost:8787',
    });
    expect(config.relayUrl).toBe('http://relay:8787');
    expect(publicRelayUrl(config)).toBe('http://localhost:8787');
    expect(publicRelayUrl(loadConfig({ RELAY_URL: 'https://relay.example.com' }))).toBe(
      'https://relay.example.com',
    );
  });

  it.skipIf(!which('docker-compose'))(
    'is a valid Compose file (docker-compose config; skipped: docker-compose is not installed)',
    async () => {
      const { stderr } = await run(which('docker-compose')!, ['-f', 'deploy/compose.yaml', 'config', '-q'], {
        cwd: ROOT,
      });
      expect(stderr).toBe('');
    },
  );
});

describe('deploy/quire.service', () => {
  const unit = read('deploy/quire.service');

  it('runs quire serve as an unprivileged user, checked by quire doctor first, hardened', () => {
    expect(unit).toMatch(/^User=quire$/m);
    expect(unit).toMatch(/^ExecStartPre=\/usr\/bin\/env node bin\/quire\.js doctor$/m);
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/env node bin\/quire\.js serve$/m);
    for (const d of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateTmp=yes',
      'UMask=0077',
      'StateDirectory=quire',
    ])
      expect(unit).toContain(d);
    const names = [...unit.matchAll(/^Environment=([A-Z_]+)=/gm)].map((m) => m[1]!);
    expect(names.filter((n) => !KNOWN.has(n) && !CONTAINER_ONLY.has(n))).toEqual([]);
  });

  it.skipIf(!which('systemd-analyze'))(
    'passes systemd-analyze verify (skipped: systemd-analyze is not installed)',
    async () => {
      const { stderr } = await run(which('systemd-analyze')!, ['verify', join(ROOT, 'deploy/quire.service')]);
      expect(stderr).toBe('');
    },
  );
});

describe('V8\'s young generation (docs/guide/deploy.md, "Memory: V8\'s heap flags")', () => {
  const FLAG = '--max-semi-space-size=8';
  it('is set the same way by npm start, the image and the systemd unit, and the unit lets quire.env change it', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`exec node ${FLAG} deploy/shared/release/start.js serve`);
    expect(read('deploy/Dockerfile')).toMatch(new RegExp(`^\\s+NODE_OPTIONS=${FLAG} \\\\$`, 'm'));
    const unit = read('deploy/quire.service');
    const set = unit.indexOf(`Environment=NODE_OPTIONS=${FLAG}\n`);
    expect(set).toBeGreaterThan(0);
    expect(set).toBeLessThan(unit.indexOf('EnvironmentFile='));
    expect(read('docs/guide/deploy.md')).toContain(FLAG);
  });

  it('is fixed at 32 MiB for the relay alone, the same in npm run relay, compose.yaml and the docs', () => {
    const RELAY = '--min-semi-space-size=32 --max-semi-space-size=32';
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.relay).toBe(`exec node ${RELAY} --import tsx deploy/relay/main.ts`);
    const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, any> };
    expect(compose.services.relay.environment.NODE_OPTIONS).toBe(RELAY);
    // The server keeps its own (the embedded relay shares its process).
    expect(compose.services.server.environment.NODE_OPTIONS).toBeUndefined();
    expect(read('deploy/Dockerfile')).toContain(`NODE_OPTIONS="${RELAY}" quire relay`);
    expect(read('docs/guide/deploy.md')).toContain(RELAY);
  });
});
