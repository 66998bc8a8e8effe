/** The steps of the link flow, named by link-flow.ts, failures.ts and the link page. */

export type StepId =
  | 'parse'
  | 'exchange'
  | 'validate'
  | 'normalize'
  | 'verify'
  | 'link'
  | 'persist'
  | 'redirect';
export type StepState = 'running' | 'done' | 'skipped' | 'failed';
