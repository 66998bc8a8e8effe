#!/usr/bin/env node
// The checkout's `quire` command (package.json "bin", `npx quire`): runs the TypeScript CLI through tsx,
// a dev dependency. Production runs the release artifact's own bin/quire.js (npm run release), no tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../deploy/node/cli/main.ts');
process.exitCode = await runCli();
