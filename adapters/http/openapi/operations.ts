/**
 * Every route of the API, once: the OpenAPI document (`document.ts`) and the typed client
 * (`sdk/`) are made from this table, and tests/openapi fails when a route the app serves is
 * missing here or a documented one is not served. Add a new area's operations in its own file.
 */
import type { Operation } from './operation.ts';
import { notes, system } from './operations-core.ts';
import { agent, channels, plugins } from './operations-features.ts';
import { files } from './operations-files.ts';
import { history } from './operations-history.ts';
import { integrations } from './operations-integrations.ts';
import { oauth } from './operations-oauth.ts';
import { people } from './operations-people.ts';
import { publish } from './operations-publish.ts';
import { security } from './operations-security.ts';

/** Every documented operation. */
export const OPERATIONS: readonly Operation[] = [
  ...system,
  ...notes,
  ...files,
  ...history,
  ...integrations,
  ...agent,
  ...channels,
  ...plugins,
  ...security,
  ...oauth,
  ...people,
  ...publish,
];
