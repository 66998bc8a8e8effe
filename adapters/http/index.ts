export { errorBody, STATUS } from '../../http-kit/envelope.ts';
export { createApp, isPublicRoute } from './app.ts';
export type { AppDeps, AppEnv } from './types.ts';
