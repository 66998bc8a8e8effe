export { createApp, isPublicRoute } from './app.ts';
export { errorBody, STATUS } from './envelope.ts';
export type { AppDeps, AppEnv } from './types.ts';
