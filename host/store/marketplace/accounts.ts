// Marketplace accounts in the store: the account record, its product quantities (and the usage
// the embedding program reports), and the history of every status and quantity change, which
// the billing report reads (api/marketplace/billing.ts). All writes take their time from
// store.now(), so tests drive the history with the store's clock.
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const ACCOUNT_STATUSES = ['TRIAL', 'ACTIVE', 'SUSPENDED', 'TRIAL_EXPIRED'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const ACCOUNT_MODELS = ['DEVICE', 'LOCATION'] as const;
export type AccountModel = (typeof ACCOUNT_MODELS)[number];

/** Every product key, in the order reports list them. */
export const PRODUCT_KEYS = ['TEAM_MEMBERS', 'AGENTS', 'MSP_INTEGRATIONS', 'MANAGED_DEVICES'] as const;
export type ProductKey = (typeof PRODUCT_KEYS)[number];

/**
 * The products an account of each model holds. MSP_INTEGRATIONS is only writable through the
 * version 1 API, which makes LOCATION accounts, so it is kept as a LOCATION product.
 */
export const MODEL_PRODUCTS: Readonly<Record<AccountModel, readonly ProductKey[]>> = {
  DEVICE: ['TEAM_MEMBERS', 'MANAGED_DEVICES'],
  LOCATION: ['TEAM_MEMBERS', 'AGENTS', 'MSP_INTEGRATIONS'],
};

/** How long a trial lasts when an account is created in TRIAL and no other length is given. */
export const DEFAULT_TRIAL_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;
const INT32_MAX = 2147483647;

export interface MarketplaceAccountRow {
  id: number;
  email: string;
  model: AccountModel;
  accountStatus: AccountStatus;
  country: string;
  firstName: string | null;
  lastName: string | null;
  city: string | null;
  state: string | null;
  companyName: string | null;
  phone: string | null;
  privacyPolicy: string;
  termsAndConditions: string;
  creationTime: number;
  endOfTrialTime: number;
  lastStatusChange: number;
  /** One entry per product of the account's model. */
  products: Partial<Record<ProductKey, { quantity: number; used: number }>>;
}

export interface NewMarketplaceAccount {
  email: string;
  model: AccountModel;
  accountStatus: AccountStatus;
  country: string;
  firstName?: string | null;
  lastName?: string | null;
  city?: string | null;
  state?: string | null;
  companyName?: string | null;
  phone?: string | null;
  privacyPolicy: string;
  termsAndConditions: string;
  /** Quantities of the model's products; one left out is 0. */
  quantities?: Partial<Record<ProductKey, number>>;
  /** The trial length of an account created in TRIAL (default 30 days). */
  trialDays?: number;
}

export interface StatusChange {
  time: number;
  accountStatus: AccountStatus;
}

export interface QuantityChange {
  time: number;
  product: ProductKey;
  quantity: number;
}

interface AccountDbRow {
  id: number;
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
  creation_time: number;
  end_of_trial_time: number;
  last_status_change: number;
}

function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > INT32_MAX) {
    throw new StoreError('INVALID', `${name} must be an integer from 0 to ${INT32_MAX}, not ${String(value)}`);
  }
}

function checkProducts(model: AccountModel, products: Iterable<string>): void {
  const allowed = MODEL_PRODUCTS[model];
  for (const product of products) {
    if (!(allowed as readonly string[]).includes(product)) {
      throw new StoreError('INVALID', `${product} is not a product of the ${model} model (its products: ${allowed.join(', ')})`);
    }
  }
}

async function toRow(store: Store, row: AccountDbRow): Promise<MarketplaceAccountRow> {
  const products: MarketplaceAccountRow['products'] = {};
  const held = await store
    .statement<[number], { product: ProductKey; quantity: number; used: number }>(
      'SELECT product, quantity, used FROM marketplace_products WHERE account_id = ?',
    )
    .all(row.id);
  // Listed in the model's order, whatever order the rows come in.
  for (const product of MODEL_PRODUCTS[row.model]) {
    const found = held.find((p) => p.product === product);
    products[product] = { quantity: found?.quantity ?? 0, used: found?.used ?? 0 };
  }
  return {
    id: row.id,
    email: row.email,
    model: row.model,
    accountStatus: row.account_status,
    country: row.country,
    firstName: row.first_name,
    lastName: row.last_name,
    city: row.city,
    state: row.state,
    companyName: row.company_name,
    phone: row.phone,
    privacyPolicy: row.privacy_policy,
    termsAndConditions: row.terms_and_conditions,
    creationTime: row.creation_time,
    endOfTrialTime: row.end_of_trial_time,
    lastStatusChange: row.last_status_change,
    products,
  };
}

async function findRow(store: Store, email: string): Promise<AccountDbRow | undefined> {
  return await store.statement<[string], AccountDbRow>('SELECT * FROM marketplace_accounts WHERE lower(email) = lower(?)').get(email);
}

async function requireRow(store: Store, email: string): Promise<AccountDbRow> {
  const row = await findRow(store, email);
  if (!row) throw new StoreError('NOT_FOUND', `marketplace account ${email} not found`);
  return row;
}

/**
 * Creates an account with its products (those left out at 0) and the first entries of its
 * history, all at store.now(). A second account with the same e-mail (in any letter case) is a
 * CONFLICT; a product outside the model is INVALID.
 */
export async function createMarketplaceAccount(store: Store, input: NewMarketplaceAccount): Promise<MarketplaceAccountRow> {
  const quantities = input.quantities ?? {};
  checkProducts(input.model, Object.keys(quantities));
  for (const [product, quantity] of Object.entries(quantities)) checkCount(`${product} quantity`, quantity);
  const trialDays = input.trialDays ?? DEFAULT_TRIAL_DAYS;
  if (!Number.isFinite(trialDays) || trialDays < 0) throw new StoreError('INVALID', `trialDays must be a number >= 0, not ${String(trialDays)}`);
  const now = store.now();
  // A trial ends trialDays after creation (unless the status leaves TRIAL earlier); an account
  // created in any other status had no trial, so its trial ended when it was created.
  const endOfTrial = input.accountStatus === 'TRIAL' ? now + Math.round(trialDays * DAY_MS) : now;
  return await store.transaction(async () => {
    if (await findRow(store, input.email)) throw new StoreError('CONFLICT', `a marketplace account with the e-mail ${input.email} already exists`);
    const info = await store
      .statement(
        `INSERT INTO marketplace_accounts (email, model, account_status, country, first_name, last_name, city, state,
           company_name, phone, privacy_policy, terms_and_conditions, creation_time, end_of_trial_time, last_status_change)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .insert(
        input.email,
        input.model,
        input.accountStatus,
        input.country,
        input.firstName ?? null,
        input.lastName ?? null,
        input.city ?? null,
        input.state ?? null,
        input.companyName ?? null,
        input.phone ?? null,
        input.privacyPolicy,
        input.termsAndConditions,
        now,
        endOfTrial,
        now,
      );
    const id = info;
    await store.statement('INSERT INTO marketplace_status_changes (account_id, time, account_status) VALUES (?, ?, ?)').run(id, now, input.accountStatus);
    for (const product of MODEL_PRODUCTS[input.model]) {
      const quantity = quantities[product] ?? 0;
      await store.statement('INSERT INTO marketplace_products (account_id, product, quantity) VALUES (?, ?, ?)').run(id, product, quantity);
      await store.statement('INSERT INTO marketplace_quantity_changes (account_id, time, product, quantity) VALUES (?, ?, ?, ?)').run(id, now, product, quantity);
    }
    return (await getMarketplaceAccountById(store, id))!;
  });
}

async function getMarketplaceAccountById(store: Store, id: number): Promise<MarketplaceAccountRow | undefined> {
  const row = await store.statement<[number], AccountDbRow>('SELECT * FROM marketplace_accounts WHERE id = ?').get(id);
  return row && await toRow(store, row);
}

/** The account with this e-mail (letter case ignored), or undefined. */
export async function getMarketplaceAccount(store: Store, email: string): Promise<MarketplaceAccountRow | undefined> {
  const row = await findRow(store, email);
  return row && await toRow(store, row);
}

/** Every account, oldest first. */
export async function listMarketplaceAccounts(store: Store): Promise<MarketplaceAccountRow[]> {
  const rows = await store
    .statement<[], AccountDbRow>('SELECT * FROM marketplace_accounts ORDER BY creation_time, id')
    .all();
  return Promise.all(rows.map((row) => toRow(store, row)));
}

/** Accounts created before `before` (ms), oldest first: those that existed in a period ending then. */
export async function listMarketplaceAccountsCreatedBefore(store: Store, before: number): Promise<MarketplaceAccountRow[]> {
  const rows = await store
    .statement<[number], AccountDbRow>('SELECT * FROM marketplace_accounts WHERE creation_time < ? ORDER BY creation_time, id')
    .all(before);
  return Promise.all(rows.map((row) => toRow(store, row)));
}

/**
 * Sets the status. Setting the status the account already has changes nothing (no history
 * entry, last_status_change kept) and answers false. Leaving TRIAL before the planned end of
 * the trial moves end_of_trial_time to now.
 */
export async function setMarketplaceStatus(store: Store, email: string, status: AccountStatus): Promise<boolean> {
  if (!(ACCOUNT_STATUSES as readonly string[]).includes(status)) throw new StoreError('INVALID', `unknown account status ${String(status)}`);
  return await store.transaction(async () => {
    const row = await requireRow(store, email);
    if (row.account_status === status) return false;
    const now = store.now();
    const endOfTrial = row.account_status === 'TRIAL' && row.end_of_trial_time > now ? now : row.end_of_trial_time;
    await store
      .statement('UPDATE marketplace_accounts SET account_status = ?, last_status_change = ?, end_of_trial_time = ? WHERE id = ?')
      .run(status, now, endOfTrial, row.id);
    await store.statement('INSERT INTO marketplace_status_changes (account_id, time, account_status) VALUES (?, ?, ?)').run(row.id, now, status);
    return true;
  });
}

/**
 * Sets the quantities given (those left out keep theirs); each product must be of the account's
 * model. A quantity equal to the current one is not written into the history. Answers the
 * products whose quantity changed.
 */
export async function setMarketplaceQuantities(store: Store, email: string, quantities: Partial<Record<ProductKey, number>>): Promise<ProductKey[]> {
  return await store.transaction(async () => {
    const row = await requireRow(store, email);
    checkProducts(row.model, Object.keys(quantities));
    for (const [product, quantity] of Object.entries(quantities)) checkCount(`${product} quantity`, quantity);
    const now = store.now();
    const current = (await toRow(store, row)).products;
    const changed: ProductKey[] = [];
    for (const product of MODEL_PRODUCTS[row.model]) {
      const quantity = quantities[product];
      if (quantity === undefined || current[product]?.quantity === quantity) continue;
      await store.statement('UPDATE marketplace_products SET quantity = ? WHERE account_id = ? AND product = ?').run(quantity, row.id, product);
      await store.statement('INSERT INTO marketplace_quantity_changes (account_id, time, product, quantity) VALUES (?, ?, ?, ?)').run(row.id, now, product, quantity);
      changed.push(product);
    }
    return changed;
  });
}

/**
 * Sets how many items of a product the customer uses (shown as `used` by the account
 * retrieve operations). The API never writes it: an embedding program feeds it with what it
 * counts (devices, agents, team members…). It is informational: billing reads quantities only.
 */
export async function setMarketplaceUsage(store: Store, email: string, product: ProductKey, used: number): Promise<void> {
  const row = await requireRow(store, email);
  checkProducts(row.model, [product]);
  checkCount(`${product} used`, used);
  await store.statement('UPDATE marketplace_products SET used = ? WHERE account_id = ? AND product = ?').run(used, row.id, product);
}

/** An account's status and quantity changes, each in the order they were made. */
export async function getMarketplaceHistory(store: Store, accountId: number): Promise<{ statuses: StatusChange[]; quantities: QuantityChange[] }> {
  const statuses = (await store
    .statement<[number], { time: number; account_status: AccountStatus }>(
      'SELECT time, account_status FROM marketplace_status_changes WHERE account_id = ? ORDER BY time, id',
    )
    .all(accountId))
    .map((r) => ({ time: r.time, accountStatus: r.account_status }));
  const quantities = await store
    .statement<[number], QuantityChange>('SELECT time, product, quantity FROM marketplace_quantity_changes WHERE account_id = ? ORDER BY time, id')
    .all(accountId);
  return { statuses, quantities };
}
