// The usage report across two months of status and quantity changes, checked item by item:
// billed_items is the largest quantity in force while the account was ACTIVE during the month.
import { describe, expect, it } from 'vitest';
import type { ProductsUsage, UsageReport } from '../../../host/api/marketplace/client/index.js';
import { billedItems, monthBounds } from '../../../host/api/marketplace/billing.js';
import { deviceAccount, locationAccount, startMarketplaceFixture } from '../../helpers/marketplace.js';

const f = await startMarketplaceFixture({ start: Date.UTC(2025, 11, 20, 9, 0, 0), routes: { marketplace: 'acme-market' } });
const { client, clock } = f;
const at = (iso: string) => {
  clock.now = Date.parse(iso);
};
const usage = (TEAM_MEMBERS: number, AGENTS: number, MSP_INTEGRATIONS: number, MANAGED_DEVICES: number): ProductsUsage => ({
  TEAM_MEMBERS: { billed_items: TEAM_MEMBERS },
  AGENTS: { billed_items: AGENTS },
  MSP_INTEGRATIONS: { billed_items: MSP_INTEGRATIONS },
  MANAGED_DEVICES: { billed_items: MANAGED_DEVICES },
});
const byEmail = (report: UsageReport) => Object.fromEntries(report.customers.map((c) => [c.email, c.products]));

describe('billing report across two months', () => {
  it('builds the history: accounts made and changed through both versions', async () => {
    // A: DEVICE, ACTIVE since December.
    await client.createAccountV2(deviceAccount('a@example.com', { first_name: 'Ann', last_name: 'Aa', products: { TEAM_MEMBERS: { quantity: 2 }, MANAGED_DEVICES: { quantity: 10 } } }));
    // B: LOCATION (v1), a trial from January 5.
    at('2026-01-05T08:00:00Z');
    await client.createAccount(locationAccount('b@example.com', { products: { TEAM_MEMBERS: { quantity: 1 }, AGENTS: { quantity: 5 }, MSP_INTEGRATIONS: { quantity: 1 } } }));
    at('2026-01-10T00:00:00Z');
    await client.updateAccountProductsV2('a@example.com', { products: { MANAGED_DEVICES: { quantity: 30 } } });
    // D: ACTIVE; in one ms its TEAM_MEMBERS go to 50 and it is suspended: 50 was never in force while ACTIVE.
    at('2026-01-12T10:00:00Z');
    await client.createAccountV2(deviceAccount('d@example.com', { products: { TEAM_MEMBERS: { quantity: 4 } } }));
    at('2026-01-12T11:00:00Z');
    await client.updateAccountProductsV2('d@example.com', { products: { TEAM_MEMBERS: { quantity: 50 } } });
    await client.updateAccountStatusV2('d@example.com', 'SUSPENDED');
    at('2026-01-15T00:00:00Z');
    await client.updateAccountProducts('b@example.com', { products: { AGENTS: { quantity: 8 } } }); // in trial: not billed yet
    at('2026-01-20T00:00:00Z');
    await client.updateAccountStatusV2('a@example.com', 'SUSPENDED');
    at('2026-01-25T00:00:00Z');
    await client.updateAccountProductsV2('a@example.com', { products: { MANAGED_DEVICES: { quantity: 100 } } }); // suspended: not billed in January
    at('2026-01-28T00:00:00Z');
    await client.updateAccountStatus('b@example.com', 'ACTIVE'); // AGENTS 8 billed from now
    // At the first instant of February: in force for all of February, never in January.
    at('2026-02-01T00:00:00.000Z');
    await client.updateAccountProducts('b@example.com', { products: { AGENTS: { quantity: 3 } } });
    at('2026-02-03T00:00:00Z');
    await client.createAccountV2(deviceAccount('c@example.com', { account_status: 'TRIAL', products: { MANAGED_DEVICES: { quantity: 500 } } }));
    at('2026-02-05T00:00:00Z');
    await client.updateAccountStatusV2('a@example.com', 'ACTIVE'); // MANAGED_DEVICES 100 billed from now
    at('2026-02-10T00:00:00Z');
    await client.updateAccountProductsV2('a@example.com', { products: { MANAGED_DEVICES: { quantity: 40 } } });
    at('2026-02-20T00:00:00Z');
    await client.updateAccountStatus('b@example.com', 'TRIAL_EXPIRED');
    await client.updateAccountProducts('b@example.com', { products: { MSP_INTEGRATIONS: { quantity: 5 } } }); // not billable
    at('2026-02-25T12:00:00Z');
  });

  it('January: each account that existed in January, billed only while ACTIVE', async () => {
    const report = await client.getBillingReportV2(2026, 1);
    expect(report.metadata).toEqual({
      billing_period: { from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T23:59:59.999Z' },
      creation_time: '2026-02-25T12:00:00.000Z',
      marketplace: 'acme-market',
      version: '1.0',
    });
    expect(report.customers.map((c) => c.email)).toEqual(['a@example.com', 'b@example.com', 'd@example.com']);
    const products = byEmail(report);
    expect(products['a@example.com']).toEqual(usage(2, 0, 0, 30)); // 10 → 30 while ACTIVE; 100 while SUSPENDED
    expect(products['b@example.com']).toEqual(usage(1, 8, 1, 0)); // ACTIVE from Jan 28 with AGENTS 8
    expect(products['d@example.com']).toEqual(usage(4, 0, 0, 0)); // 50 only while SUSPENDED
    expect(report.summary.products).toEqual(usage(7, 8, 1, 30));
    // The customer fields are the account's current ones.
    expect(report.customers[0]).toEqual({
      email: 'a@example.com',
      first_name: 'Ann',
      last_name: 'Aa',
      country: 'IT',
      creation_time: '2025-12-20T09:00:00.000Z',
      end_of_trial_time: '2025-12-20T09:00:00.000Z',
      last_status_change: '2026-02-05T00:00:00.000Z',
      account_status: 'ACTIVE',
      products: usage(2, 0, 0, 30),
    });
    expect(report.customers[1]).toMatchObject({
      first_name: '',
      last_name: '',
      country: 'DE',
      account_status: 'TRIAL_EXPIRED',
      creation_time: '2026-01-05T08:00:00.000Z',
      // The trial ended when B became ACTIVE, before its planned end.
      end_of_trial_time: '2026-01-28T00:00:00.000Z',
      last_status_change: '2026-02-20T00:00:00.000Z',
    });
  });

  it('February (the current month, up to now): the new trial account is listed with nothing billed', async () => {
    const report = await client.getBillingReportV2(2026, 2);
    expect(report.metadata.billing_period).toEqual({ from: '2026-02-01T00:00:00.000Z', to: '2026-02-28T23:59:59.999Z' });
    expect(report.customers.map((c) => c.email)).toEqual(['a@example.com', 'b@example.com', 'd@example.com', 'c@example.com']);
    const products = byEmail(report);
    expect(products['a@example.com']).toEqual(usage(2, 0, 0, 100)); // 100 from Feb 5 to Feb 10, then 40
    expect(products['b@example.com']).toEqual(usage(1, 3, 1, 0)); // AGENTS 3 from the first instant; MSP 5 only after TRIAL_EXPIRED
    expect(products['d@example.com']).toEqual(usage(0, 0, 0, 0)); // SUSPENDED all month
    expect(products['c@example.com']).toEqual(usage(0, 0, 0, 0)); // TRIAL
    expect(report.summary.products).toEqual(usage(3, 3, 1, 100));
  });

  it('December: only the account that existed then; March (not begun): no customers', async () => {
    const december = await client.getBillingReportV2(2025, 12);
    expect(december.metadata.billing_period).toEqual({ from: '2025-12-01T00:00:00.000Z', to: '2025-12-31T23:59:59.999Z' });
    expect(december.customers.map((c) => [c.email, c.products])).toEqual([['a@example.com', usage(2, 0, 0, 10)]]);
    const march = await client.getBillingReportV2(2026, 3);
    expect(march.customers).toEqual([]);
    expect(march.summary.products).toEqual(usage(0, 0, 0, 0));
  });

  it('version 1 answers the same reports', async () => {
    for (const month of [1, 2]) expect(await client.getBillingReport(2026, month)).toEqual(await client.getBillingReportV2(2026, month));
  });
});

describe('billedItems', () => {
  it('counts the state at the first instant, each change inside the period, nothing at or after its end', () => {
    const { from, end } = monthBounds(2028, 2);
    expect(new Date(end - 1).toISOString()).toBe('2028-02-29T23:59:59.999Z');
    const history = {
      statuses: [
        { time: from - 5, accountStatus: 'ACTIVE' as const },
        { time: end - 1, accountStatus: 'SUSPENDED' as const },
        { time: end + 10, accountStatus: 'ACTIVE' as const },
      ],
      quantities: [
        { time: from - 5, product: 'AGENTS' as const, quantity: 4 },
        { time: from + 1, product: 'AGENTS' as const, quantity: 2 },
        // In force from the last ms, when the account is no longer ACTIVE.
        { time: end - 1, product: 'AGENTS' as const, quantity: 9 },
        { time: end, product: 'TEAM_MEMBERS' as const, quantity: 70 },
      ],
    };
    expect(billedItems(history, from, end)).toEqual({ TEAM_MEMBERS: 0, AGENTS: 4, MSP_INTEGRATIONS: 0, MANAGED_DEVICES: 0 });
    // An account created inside the period is counted from its creation.
    expect(billedItems({ statuses: [{ time: from + 100, accountStatus: 'ACTIVE' }], quantities: [{ time: from + 100, product: 'AGENTS', quantity: 6 }] }, from, end).AGENTS).toBe(6);
  });
});
