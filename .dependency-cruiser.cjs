/**
 * Import rules, checked by `npm run cycles` (part of `npm test`) over the source tree (tests and
 * bench excluded). Layers, top to bottom: bin, bench > deploy > client-link > sdk > adapters >
 * relay > http-kit > core; an import points down or sideways, never up (docs/reference/architecture.md).
 */
const others = (...dirs) => `^(${dirs.join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'An import circle, of values or of types only: break it at its cause (move the shared piece, or the ' +
        'types, down into a leaf module of its own).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-no-other-layer',
      severity: 'error',
      comment: 'core/ is the bottom layer: it imports nothing of the folders above it.',
      from: { path: '^core/' },
      to: { path: others('http-kit', 'relay', 'adapters', 'sdk', 'client-link', 'deploy', 'bench', 'bin') },
    },
    {
      name: 'notes-ask-search-through-its-entry',
      severity: 'error',
      comment:
        'Search lives in core/search/: core/notes/ reaches it through core/search/lexical/index.ts only ' +
        '(and its MCP tool list names the search tool schema, core/search/schemas.ts).',
      from: { path: '^core/notes/' },
      to: { path: '^core/search/', pathNot: '^core/search/(lexical/index|schemas)\\.ts$' },
    },
    {
      name: 'http-kit-below-relay-and-adapters',
      severity: 'error',
      comment: 'http-kit/ sits below relay/ and adapters/: it imports only core/.',
      from: { path: '^http-kit/' },
      to: { path: others('relay', 'adapters', 'sdk', 'client-link', 'deploy', 'bench', 'bin') },
    },
    {
      name: 'relay-below-adapters',
      severity: 'error',
      comment: 'relay/ imports core/ and http-kit/ only, never adapters/ or the roots.',
      from: { path: '^relay/' },
      to: { path: others('adapters', 'sdk', 'client-link', 'deploy', 'bench', 'bin') },
    },
    {
      name: 'adapters-below-sdk-and-roots',
      severity: 'error',
      comment:
        'adapters/ implement the ports of core/ over http-kit/ and relay/; the roots compose them, never the reverse.',
      from: { path: '^adapters/' },
      to: { path: others('sdk', 'client-link', 'deploy', 'bench', 'bin') },
    },
    {
      name: 'sdk-below-client-and-roots',
      severity: 'error',
      comment:
        'sdk/ is the client library: core/ and the OpenAPI operation types of adapters/http, nothing above.',
      from: { path: '^sdk/' },
      to: { path: others('client-link', 'deploy', 'bench', 'bin') },
    },
    {
      name: 'client-link-below-roots',
      severity: 'error',
      comment: 'client-link/ is the browser client: it imports core/ and sdk/, never a runtime root.',
      from: { path: '^client-link/' },
      to: { path: others('deploy', 'bench', 'bin') },
    },
    {
      name: 'deploy-below-bench-and-bin',
      severity: 'error',
      comment: 'deploy/ holds the runtime roots; nothing of bench/ or bin/ is part of a running server.',
      from: { path: '^deploy/' },
      to: { path: others('bench', 'bin') },
    },
    {
      name: 'deploy-shared-imports-no-runtime-root',
      severity: 'error',
      comment: 'deploy/shared/ is what every runtime root shares; it never reaches into one of them.',
      from: { path: '^deploy/shared/' },
      to: { path: '^deploy/(node|workerd|bun|deno|relay)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Keep `import type` edges in the graph: the layer and circle rules hold for types too.
    tsPreCompilationDeps: true,
  },
};
