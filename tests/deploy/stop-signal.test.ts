/**
 * The shipped ways of starting Quire deliver their stop signal to the server itself: no shell, npm
 * or other wrapper between the supervisor and the Node process that runs the server (a wrapper
 * that dies on SIGTERM leaves the server running with its port; tests/deploy/node/cli/signals.test.ts shows it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/child.ts';

const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');
const WRAPPERS = /^(?:sh|bash|\/bin\/sh|\/bin\/bash|npm|npx|tsx|yarn|pnpm)$/;

describe('the stop signal reaches the server', () => {
  it('Docker: ENTRYPOINT and CMD are exec form and run node directly, stopped by SIGTERM', () => {
    const text = read('deploy/Dockerfile');
    const final = text.slice(text.lastIndexOf('\nFROM '));
    const entry = /^ENTRYPOINT (.+)$/m.exec(final)?.[1];
    const cmd = /^CMD (.+)$/m.exec(final)?.[1];
    expect(entry, 'a JSON array (exec form): shell form runs /bin/sh -c, which keeps the signal').toMatch(
      /^\[.*\]$/,
    );
    expect(cmd).toMatch(/^\[.*\]$/);
    const argv = JSON.parse(entry!) as string[];
    expect(argv[0]).toBe('node');
    expect(argv.some((a) => WRAPPERS.test(a))).toBe(false);
    expect(final).not.toMatch(/^STOPSIGNAL (?!SIGTERM)/m);
  });

  it('systemd: ExecStart runs node (through env, which execs it), never a shell or npm; SIGTERM stops it', () => {
    const unit = read('deploy/quire.service');
    const exec = /^ExecStart=(.+)$/m.exec(unit)?.[1]?.trim().split(/\s+/) ?? [];
    const program = exec[0] === '/usr/bin/env' ? exec.slice(1) : exec;
    expect(program[0]).toBe('node');
    expect(exec.some((a) => WRAPPERS.test(a) || a === '-c')).toBe(false);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).not.toMatch(/^KillMode=none$/m);
  });

  it('npm start, npm run relay and start:bun/deno exec node (no shell left between npm and the server)', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    for (const name of ['start', 'relay', 'start:bun', 'start:deno'])
      expect(pkg.scripts[name], name).toMatch(/^exec node /);
  });

  it('bin/quire.js runs the CLI in its own process (no child process to forward signals to)', () => {
    const bin = read('bin/quire.js');
    expect(bin).not.toMatch(/child_process|spawn\(|fork\(|execFile/);
    expect(bin).toMatch(/await import\('\.\.\/deploy\/node\/cli\/main\.ts'\)/);
  });
});
