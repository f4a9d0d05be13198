// The Marketplace API's request and response bodies (shared/specs/marketplace-api.md), as the
// emulator writes them and MarketplaceClient reads them. Times are ISO 8601 date-time text in
// UTC with milliseconds (2026-01-31T23:59:59.999Z).
import type { AccountModel, AccountStatus, ProductKey } from '../../store/marketplace/accounts.js';

export type { AccountModel, AccountStatus, ProductKey };

/** A product of a write body: null is the same as leaving the key out. */
export type ProductWrite = { quantity: number } | null;

interface AccountCreateFields {
  email: string;
  /** ISO-3166 alpha-2 (two letters). */
  country: string;
  account_status: AccountStatus;
  /** The privacy policy version the customer accepted. */
  privacy_policy: string;
  /** The terms and conditions version the customer accepted. */
  terms_and_conditions: string;
  first_name?: string | null;
  last_name?: string | null;
  city?: string | null;
  state?: string | null;
  company_name?: string | null;
  phone?: string | null;
}

/** create_account_v2: makes a DEVICE account. */
export interface AccountCreateV2 extends AccountCreateFields {
  products: { TEAM_MEMBERS?: ProductWrite; MANAGED_DEVICES?: ProductWrite };
}

/** create_account (v1): makes a LOCATION account. */
export interface AccountCreateV1 extends AccountCreateFields {
  products: { TEAM_MEMBERS?: ProductWrite; AGENTS?: ProductWrite; MSP_INTEGRATIONS?: ProductWrite };
}

export interface AccountCreateResult {
  access_url: string;
}

export interface AccountList {
  data: Array<{ email: string }>;
}

export interface ProductRead {
  quantity: number;
  /** Fed by the embedding program (setMarketplaceUsage); 0 until then. */
  used: number;
}

/** The account record of get_account / get_account_v2 (the spec leaves its fields open; these are ours). */
export interface Account {
  email: string;
  model: AccountModel;
  account_status: AccountStatus;
  country: string;
  first_name: string | null;
  last_name: string | null;
  city: string | null;
  state: string | null;
  company_name: string | null;
  phone: string | null;
  privacy_policy: string;
  terms_and_conditions: string;
  creation_time: string;
  end_of_trial_time: string;
  last_status_change: string;
  access_url: string;
  /** The products of the account's model only. */
  products: Partial<Record<ProductKey, ProductRead>>;
}

export interface StatusUpdate {
  account_status: AccountStatus;
}

export interface ProductsUpdateV2 {
  products: { TEAM_MEMBERS?: ProductWrite; AGENTS?: ProductWrite; MANAGED_DEVICES?: ProductWrite };
}

export interface ProductsUpdateV1 {
  products: { TEAM_MEMBERS?: ProductWrite; AGENTS?: ProductWrite; MSP_INTEGRATIONS?: ProductWrite };
}

export interface Agreement {
  version: string;
  url: string;
}

export interface Agreements {
  privacy_policy: Agreement;
  terms_and_conditions: Agreement;
}

export type ProductsUsage = Record<ProductKey, { billed_items: number }>;

export interface CustomerReport {
  email: string;
  /** "" when the account has none. */
  first_name: string;
  last_name: string;
  country: string;
  creation_time: string;
  end_of_trial_time: string;
  last_status_change: string;
  account_status: AccountStatus;
  products: ProductsUsage;
}

export interface UsageReport {
  metadata: {
    billing_period: { from: string; to: string };
    creation_time: string;
    marketplace: string;
    version: '1.0';
  };
  customers: CustomerReport[];
  summary: { products: ProductsUsage };
}

export interface ValidationProblem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** 422 body. */
export interface ValidationErrorBody {
  detail: ValidationProblem[];
}

/** 401, 404, 409… body. */
export interface MessageErrorBody {
  detail: string;
}
