// Store rows as the API writes them.
import type { MarketplaceAccountRow } from '../../store/marketplace/accounts.js';
import type { Account } from './types.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The access URL of an account: the base with the e-mail as its last path segment. */
export function accessUrl(base: string, email: string): string {
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(email)}`;
}

export function presentAccount(row: MarketplaceAccountRow, accessUrlBase: string): Account {
  return {
    email: row.email,
    model: row.model,
    account_status: row.accountStatus,
    country: row.country,
    first_name: row.firstName,
    last_name: row.lastName,
    city: row.city,
    state: row.state,
    company_name: row.companyName,
    phone: row.phone,
    privacy_policy: row.privacyPolicy,
    terms_and_conditions: row.termsAndConditions,
    creation_time: iso(row.creationTime),
    end_of_trial_time: iso(row.endOfTrialTime),
    last_status_change: iso(row.lastStatusChange),
    access_url: accessUrl(accessUrlBase, row.email),
    products: { ...row.products },
  };
}
