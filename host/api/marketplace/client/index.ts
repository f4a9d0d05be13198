// The Marketplace API client's public surface.
export { MarketplaceClient, marketplaceClientOperations } from './client.js';
export type { MarketplaceClientOptions } from './core.js';
export {
  MarketplaceApiError,
  MarketplaceAuthError,
  MarketplaceNotFoundError,
  MarketplaceConflictError,
  MarketplaceValidationError,
  MarketplaceConnectionError,
} from './errors.js';
export type * from '../types.js';
