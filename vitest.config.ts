import { defineConfig } from 'vitest/config';

/** Folders whose tests spawn processes (servers, builds, browsers): each file in a fresh module graph. */
const PROCESSES = ['deploy', 'release', 'reliability', 'runtime', 'e2e', 'browser', 'docs'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest decides whether a fork is reused from this root setting only; a project's `isolate`
    // only says whether its modules are reset between files. Left at its default (a new fork for
    // every file) the suite started 260 processes, each importing vitest and its file's sources:
    // 9.5 min warm. Forks reused, each project keeping its own rule below: 7.6 min, all passing.
    poolOptions: { forks: { isolate: false } },
    // Vitest's default is one worker fewer than the cores: on CI's two cores, one file at a time,
    // while most files wait on child processes, sockets and browsers. Two workers keep both busy.
    maxWorkers: 2,
    minWorkers: 1,
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['tests/**/*.test.ts'],
          exclude: PROCESSES.map((d) => `tests/${d}/**`),
          // These files share a worker's module graph: importing the sources once per worker, not
          // once per file, took tests/core from 447 s to 265 s (collect 109 s to 26 s) with every
          // test passing. A file that changes module state must undo it in its own hooks.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESSES.map((d) => `tests/${d}/**/*.test.ts`),
          // These start servers, builds and browsers: on a busy two-core machine a start alone took
          // over 20 s (tests timed out that pass in 3 s on a quiet one). A time-out here only says
          // when to give up on something that never comes, so it is generous.
          testTimeout: 60_000,
          hookTimeout: 90_000,
          // A fresh module graph for each file, in a reused fork.
          poolOptions: { forks: { isolate: true } },
        },
      },
    ],
  },
});
