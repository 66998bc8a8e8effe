import type { Variable } from './variables.ts';

/** The variables the CLI itself reads (besides the server's and the relay's). */
export const CLI_VARIABLES = {
  QUIRE_URL: {
    group: 'CLI',
    kind: 'url',
    shown: '`http://HOST:PORT`',
    meaning: 'The server `quire setup`, `keys`, `doctor` and `mcp` talk to (`--url` overrides).',
  },
  QUIRE_API_KEY: {
    group: 'CLI',
    kind: 'secret',
    shown: '—',
    meaning:
      'The key `quire keys` and `quire mcp` send (a key, not a flag, so it stays out of `ps` and shell history).',
  },
} as const satisfies Record<string, Variable>;
