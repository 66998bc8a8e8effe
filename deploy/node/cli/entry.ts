/** The release bundle's entry (dist/server/quire.js): the `quire` command, with no TypeScript loader. */
import { runCli } from './main.ts';

process.exitCode = await runCli();
