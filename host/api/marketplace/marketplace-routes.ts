// The Marketplace API emulator as a Fastify plugin: version 2 under /marketplace-api/v2 and the
// deprecated version 1 under /marketplace-api/v1, over the store's marketplace accounts, every
// request behind X-API-Key. Register it at the root of an app (driverbox serve and the agent
// pass it to startMonitoringServer's extraRoutes); it keeps its own error bodies in its scope.
import type { FastifyInstance } from 'fastify';
import { DEFAULT_TRIAL_DAYS } from '../../store/marketplace/accounts.js';
import type { Store } from '../../store/store.js';
import { apiKeyCheck } from '../monitoring/auth.js';
import type { MarketplaceContext } from './context.js';
import { installMarketplaceErrors, MarketplaceHttpError } from './http-error.js';
import { registerAccountRoutes } from './routes/accounts.js';
import { registerAgreementRoutes } from './routes/agreements.js';
import { registerBillingReportRoutes } from './routes/billing-report.js';
import type { Agreements } from './types.js';
import type { ApiVersion } from './validate.js';

export const MARKETPLACE_PREFIX = '/marketplace-api';

export const DEFAULT_AGREEMENTS: Agreements = {
  privacy_policy: { version: '1.0', url: 'https://marketplace.driverbox.invalid/legal/privacy-policy/1.0' },
  terms_and_conditions: { version: '1.0', url: 'https://marketplace.driverbox.invalid/legal/terms-and-conditions/1.0' },
};
export const DEFAULT_MARKETPLACE_NAME = 'driverbox';
export const DEFAULT_ACCESS_URL_BASE = 'https://portal.driverbox.invalid/marketplace/access';

export interface MarketplaceRoutesOptions {
  store: Store;
  /** Accepted X-API-Key values; at least one. */
  apiKeys: readonly string[];
  /** What the agreements operations answer. Default version "1.0" with URLs under marketplace.driverbox.invalid. */
  agreements?: Agreements;
  /** metadata.marketplace of the usage reports. Default "driverbox". */
  marketplace?: string;
  /** access_url of a created account: this base + "/" + the URL-encoded e-mail. */
  accessUrlBase?: string;
  /** Trial length of an account created in TRIAL, in days (default 30). */
  trialDays?: number;
}

function checkAgreements(agreements: Agreements): Agreements {
  for (const name of ['privacy_policy', 'terms_and_conditions'] as const) {
    const entry = agreements?.[name];
    if (!entry || typeof entry.version !== 'string' || entry.version === '') throw new TypeError(`marketplace: agreements.${name}.version must be a non-empty string`);
    if (typeof entry.url !== 'string' || !URL.canParse(entry.url)) throw new TypeError(`marketplace: agreements.${name}.url must be an absolute URL, got ${JSON.stringify(entry?.url)}`);
  }
  return agreements;
}

/** The plugin's settings beside the store and the keys: what a server config file may set. */
export type MarketplaceSettings = Omit<MarketplaceRoutesOptions, 'store' | 'apiKeys'>;

/** The settings with their defaults; a bad one throws a TypeError naming it. */
export function resolveMarketplaceSettings(settings: MarketplaceSettings): Required<MarketplaceSettings> {
  const trialDays = settings.trialDays ?? DEFAULT_TRIAL_DAYS;
  if (typeof trialDays !== 'number' || !Number.isFinite(trialDays) || trialDays < 0) throw new TypeError(`marketplace: trialDays must be a number >= 0, got ${String(settings.trialDays)}`);
  const accessUrlBase = settings.accessUrlBase ?? DEFAULT_ACCESS_URL_BASE;
  if (typeof accessUrlBase !== 'string' || !URL.canParse(accessUrlBase)) throw new TypeError(`marketplace: accessUrlBase must be an absolute URL, got ${JSON.stringify(accessUrlBase)}`);
  const marketplace = settings.marketplace ?? DEFAULT_MARKETPLACE_NAME;
  if (typeof marketplace !== 'string' || marketplace === '') throw new TypeError(`marketplace: marketplace must be a non-empty name, got ${JSON.stringify(marketplace)}`);
  return { agreements: checkAgreements(settings.agreements ?? DEFAULT_AGREEMENTS), marketplace, accessUrlBase, trialDays };
}

function contextOf(options: MarketplaceRoutesOptions): MarketplaceContext {
  if (!options.apiKeys || options.apiKeys.length === 0) throw new TypeError('marketplace: the Marketplace API needs at least one API key');
  return { store: options.store, ...resolveMarketplaceSettings(options) };
}

export async function marketplaceRoutes(app: FastifyInstance, options: MarketplaceRoutesOptions): Promise<void> {
  const ctx = contextOf(options);
  const checkKey = apiKeyCheck(options.apiKeys);
  for (const version of ['v2', 'v1'] as const satisfies readonly ApiVersion[]) {
    await app.register(
      async (api) => {
        installMarketplaceErrors(api);
        api.addHook('onRequest', checkKey);
        registerAccountRoutes(api, ctx, version);
        registerAgreementRoutes(api, ctx);
        registerBillingReportRoutes(api, ctx);
        api.setNotFoundHandler(async (request) => {
          throw new MarketplaceHttpError(404, `no operation at ${request.method} ${request.url.split('?')[0]}`);
        });
      },
      { prefix: `${MARKETPLACE_PREFIX}/${version}` },
    );
  }
}
