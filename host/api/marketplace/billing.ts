// The usage report of a calendar month, computed from the store's history of status and
// quantity changes. An account is billable while its status is ACTIVE (TRIAL, SUSPENDED and
// TRIAL_EXPIRED are not billed); a product's billed_items is the largest quantity in force at
// any instant of the month at which the account was billable.
import {
  getMarketplaceHistory,
  listMarketplaceAccountsCreatedBefore,
  PRODUCT_KEYS,
  type AccountStatus,
  type ProductKey,
  type QuantityChange,
  type StatusChange,
} from '../../store/marketplace/accounts.js';
import type { Store } from '../../store/store.js';
import type { ProductsUsage, UsageReport } from './types.js';

export const BILLABLE_STATUSES: readonly AccountStatus[] = ['ACTIVE'];

export const REPORT_FORMAT_VERSION = '1.0';

/** The first instant of the month and the first of the next one (ms, UTC). */
export function monthBounds(year: number, month: number): { from: number; end: number } {
  return { from: Date.UTC(year, month - 1, 1), end: Date.UTC(year, month, 1) };
}

const zeroUsage = (): ProductsUsage =>
  Object.fromEntries(PRODUCT_KEYS.map((key) => [key, { billed_items: 0 }])) as ProductsUsage;

/**
 * Billed items per product over [from, end). The state at an instant is the one after every
 * change recorded at that instant (changes made in one ms count as simultaneous), so the
 * instants to look at are `from` itself and each time a change was made inside the period.
 */
export function billedItems(
  history: { statuses: readonly StatusChange[]; quantities: readonly QuantityChange[] },
  from: number,
  end: number,
): Record<ProductKey, number> {
  const billed = Object.fromEntries(PRODUCT_KEYS.map((key) => [key, 0])) as Record<ProductKey, number>;
  let status: AccountStatus | undefined;
  const quantities: Partial<Record<ProductKey, number>> = {};
  const evaluate = () => {
    if (status === undefined || !BILLABLE_STATUSES.includes(status)) return;
    for (const [key, quantity] of Object.entries(quantities) as Array<[ProductKey, number]>) billed[key] = Math.max(billed[key], quantity);
  };
  const times = [...new Set([...history.statuses.map((s) => s.time), ...history.quantities.map((q) => q.time)])].sort((a, b) => a - b);
  let s = 0;
  let q = 0;
  const applyUpTo = (time: number) => {
    for (; s < history.statuses.length && history.statuses[s]!.time <= time; s++) status = history.statuses[s]!.accountStatus;
    for (; q < history.quantities.length && history.quantities[q]!.time <= time; q++) quantities[history.quantities[q]!.product] = history.quantities[q]!.quantity;
  };
  applyUpTo(from);
  evaluate();
  for (const time of times) {
    if (time <= from) continue;
    if (time >= end) break;
    applyUpTo(time);
    evaluate();
  }
  return billed;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The report of one month: every account that existed at some instant of it that has already
 * come (created before the month's end and the month begun by now), oldest first. The
 * customer fields other than products are the account's current ones.
 */
export async function buildUsageReport(store: Store, year: number, month: number, marketplace: string): Promise<UsageReport> {
  const now = store.now();
  const { from, end } = monthBounds(year, month);
  const accounts = from <= now ? await listMarketplaceAccountsCreatedBefore(store, end) : [];
  const summary = zeroUsage();
  const customers = [];
  for (const account of accounts) {
    customers.push(await (async () => {
    const billed = billedItems(await getMarketplaceHistory(store, account.id), from, end);
    const products = zeroUsage();
    for (const key of PRODUCT_KEYS) {
      products[key].billed_items = billed[key];
      summary[key].billed_items += billed[key];
    }
    return {
      email: account.email,
      first_name: account.firstName ?? '',
      last_name: account.lastName ?? '',
      country: account.country,
      creation_time: iso(account.creationTime),
      end_of_trial_time: iso(account.endOfTrialTime),
      last_status_change: iso(account.lastStatusChange),
      account_status: account.accountStatus,
      products,
    };
    })());
  }
  return {
    metadata: {
      billing_period: { from: iso(from), to: iso(end - 1) },
      creation_time: iso(now),
      marketplace,
      version: REPORT_FORMAT_VERSION,
    },
    customers,
    summary: { products: summary },
  };
}
