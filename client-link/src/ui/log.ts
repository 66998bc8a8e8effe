import { redact } from '../flow/redact.ts';

/** The client's only way to the console: every line is redacted first. */
export const log = {
  info: (msg: string, ...parts: string[]) => console.info(redact(['[quire]', msg, ...parts].join(' '))),
  warn: (msg: string, ...parts: string[]) => console.warn(redact(['[quire]', msg, ...parts].join(' '))),
};
