// MarketplaceClient: a typed client of the Marketplace API, version 2 and the deprecated
// version 1, plus the application status. Method names are the operation ids in camelCase
// (create_account_v2 → createAccountV2); each version's operations are a module mixed in.
import type { ApplicationStatus, StatusQuery } from '../../driverbox/status.js';
import { MarketplaceClientCore, type MarketplaceClientOptions } from './core.js';
import { v1Operations } from './v1.js';
import { v2Operations } from './v2.js';

const operations = {
  ...v2Operations,
  ...v1Operations,
  /** get_status: GET /backend-api/v1/status; each flag defaults to false. */
  getStatus(this: MarketplaceClientCore, query: Partial<StatusQuery> = {}): Promise<ApplicationStatus> {
    return this.call('get_status', 'GET', '/backend-api/v1/status', { query });
  },
};

type Operations = typeof operations;

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface MarketplaceClient extends Operations {}

export class MarketplaceClient extends MarketplaceClientCore {
  constructor(options: MarketplaceClientOptions) {
    super(options);
  }
}

Object.assign(MarketplaceClient.prototype, operations);

/** The client's method names (one per operation of the spec). */
export const marketplaceClientOperations: readonly string[] = Object.keys(operations);
