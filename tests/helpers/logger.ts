/** The loggers of tests: one that drops every line, one that keeps them. */
import type { Logger } from '../../core/ports.ts';

/** Drops every line. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A logger that keeps every line as JSON text, to check what was logged (and that nothing secret was). */
export function capturingLogger() {
  const lines: string[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    lines.push(JSON.stringify({ level, msg, ...fields }));
  };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}
