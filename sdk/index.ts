/** `quire/client`: the typed client of the Quire API. */

export type { Capability, KeyScope } from '../core/auth/scope.ts';
export { CLIENT_OPERATIONS, createQuireClient, type OperationId, type QuireClient } from './client.ts';
export {
  type ApiRequest,
  type FetchTransportOptions,
  fetchTransport,
  QuireApiError,
  queryString,
  type Transport,
} from './transport.ts';
