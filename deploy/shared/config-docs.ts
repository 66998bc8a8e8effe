/**
 * `npm run docs:config`: writes docs/reference/configuration.md from the variable tables
 * (deploy/shared/config/page.ts); tests/docs fails when the page and the tables differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { configurationPage } from '../shared/config/page.ts';

export { configurationPage };

/** Where the page lives. */
export const CONFIG_PAGE = fileURLToPath(new URL('../../docs/reference/configuration.md', import.meta.url));

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const page = configurationPage();
  let current = '';
  try {
    current = readFileSync(CONFIG_PAGE, 'utf8');
  } catch {}
  if (current === page) process.stdout.write('docs/reference/configuration.md is up to date.\n');
  else {
    writeFileSync(CONFIG_PAGE, page);
    process.stdout.write('docs/reference/configuration.md written.\n');
  }
}
