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
        'A value-level import circle: break it at its cause (move the shared piece down into a module of its own). ' +
        'Circles made only of `import type` edges are erased by the compiler and allowed.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'core-imports-no-other-layer',
      severity: 'error',
      comment: 'core/ is the bottom layer: it imports nothing of the folders above it.',
      from: { path: '^core/' },
      to: { path: others('http-kit', 'relay', 'adapters', 'sdk', 'client-link', 'deploy', 'bench', 'bin') },
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
      comment:
        'relay/ imports core/ and http-kit/ only, never adapters/ or the roots. Exception until the ' +
        "roots work of issue 32 lands: relay/node/server.ts (the relay's Node start) still reads " +
        'deploy/shared/config/relay.ts and adapters/node/{logger,http-timeouts,http-drain}.ts.',
      from: { path: '^relay/', pathNot: '^relay/node/server\\.ts$' },
      to: { path: others('adapters', 'sdk', 'client-link', 'deploy', 'bench', 'bin') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Keep `import type` edges in the graph (the layer rules hold for types too); the circle rule
    // above skips them.
    tsPreCompilationDeps: true,
  },
};
