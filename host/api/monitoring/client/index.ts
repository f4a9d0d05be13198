// The Monitoring API client's public surface.
export { MonitoringClient, clientOperationIds } from './client.js';
export type { MonitoringClientOptions, Query, CallOptions } from './core.js';
export { paginate, listAll, type PageQuery } from './paging.js';
export {
  MonitoringApiError,
  MonitoringAuthError,
  MonitoringNotFoundError,
  MonitoringValidationError,
  MonitoringConnectionError,
  type ApiErrorBody,
} from './errors.js';
