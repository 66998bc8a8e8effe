#!/usr/bin/env node
// The `quire` command (package.json "bin"): runs the TypeScript CLI through tsx, like npm start.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../deploy/node/cli/main.ts');
process.exitCode = await runCli();
