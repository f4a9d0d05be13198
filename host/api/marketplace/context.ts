// What every route of the Marketplace API is given (the plugin's options with defaults filled in).
import type { Store } from '../../store/store.js';
import type { Agreements } from './types.js';

export interface MarketplaceContext {
  store: Store;
  agreements: Agreements;
  /** metadata.marketplace of the usage reports. */
  marketplace: string;
  /** access_url of an account is this base + "/" + the encoded e-mail. */
  accessUrlBase: string;
  /** Length of the trial of an account created in TRIAL. */
  trialDays: number;
}
