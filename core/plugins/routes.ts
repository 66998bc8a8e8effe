/** Dispatch of the routes plugins contribute under `/api/v1/plugins/:id/...`. */
import * as v from 'valibot';
import { DomainError, isDomainError } from '../errors.ts';
import type { Clock, Logger } from '../ports.ts';
import { recordError, type Slot } from './runtime.ts';

/** One call of a plugin route: the method, the path after `/plugins/<id>`, the raw query or body. */
export interface RouteCall {
  method: string;
  path: string;
  input: unknown;
  signal?: AbortSignal;
}

/**
 * Runs the route of an installed plugin: 409 when it is disabled or not running, 404 for a
 * route it does not have, 400 naming the field for bad input; other failures are recorded.
 */
export async function callPluginRoute(
  slot: Slot,
  enabled: boolean,
  call: RouteCall,
  clock: Clock,
  logger?: Logger,
): Promise<unknown> {
  const id = slot.def.id;
  const { method, path } = call;
  if (!enabled) {
    throw new DomainError(
      'CONFLICT',
      `Plugin ${id} is disabled; POST /api/v1/plugins/${id}/toggle {"enabled": true}.`,
    );
  }
  if (!slot.instance)
    throw new DomainError('CONFLICT', `Plugin ${id} is not running; see GET /api/v1/plugins/runtime.`);
  const route = slot.routes.find((r) => r.method === method && r.path === path);
  if (!route) {
    const known = slot.routes.map((r) => `${r.method} ${r.path}`).join(', ') || 'none';
    throw new DomainError(
      'NOT_FOUND',
      `Plugin ${id} has no route ${method} ${path || '/'} (it has: ${known}).`,
    );
  }
  const parsed = v.safeParse(route.input, call.input);
  if (!parsed.success) {
    const issues = parsed.issues.map((i) => ({ field: v.getDotPath(i) ?? '(input)', message: i.message }));
    throw new DomainError('VALIDATION_ERROR', `Invalid ${issues[0]!.field}: ${issues[0]!.message}`, {
      issues,
    });
  }
  try {
    return await route.run(parsed.output, { signal: call.signal });
  } catch (err) {
    if (!isDomainError(err)) recordError(slot, `route ${method} ${path}`, err, clock, logger);
    throw err;
  }
}
