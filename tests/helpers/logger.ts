/** The logger of tests that do not read the log. */
import type { Logger } from '../../core/ports.ts';

/** Drops every line. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
