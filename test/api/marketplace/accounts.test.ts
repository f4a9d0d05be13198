// The Marketplace API through MarketplaceClient against the real server on loopback: every
// operation of both versions, 401 / 404 / 409, and v1 versus v2.
import { describe, expect, it } from 'vitest';
import {
  MarketplaceAuthError,
  MarketplaceClient,
  MarketplaceConflictError,
  MarketplaceNotFoundError,
  MarketplaceValidationError,
  marketplaceClientOperations,
} from '../../../host/api/marketplace/client/index.js';
import { DEFAULT_AGREEMENTS } from '../../../host/api/marketplace/marketplace-routes.js';
import { getMarketplaceHistory, setMarketplaceUsage } from '../../../host/store/marketplace/accounts.js';
import { deviceAccount, locationAccount, MARKET_KEY, startMarketplaceFixture } from '../../helpers/marketplace.js';

const f = await startMarketplaceFixture({
  routes: {
    marketplace: 'lab-marketplace',
    accessUrlBase: 'https://portal.test.invalid/access',
    trialDays: 14,
    agreements: {
      privacy_policy: { version: '2026-01', url: 'https://legal.test.invalid/privacy/2026-01' },
      terms_and_conditions: { version: '7', url: 'https://legal.test.invalid/terms/7' },
    },
  },
});
const DAY = 24 * 3600 * 1000;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

describe('version 2 accounts', () => {
  it('creates a DEVICE account, lists it and retrieves it with its products, quantity and used', async () => {
    const created = await f.client.createAccountV2({
      ...deviceAccount('ada@example.com'),
      first_name: 'Ada',
      last_name: 'Lovelace',
      city: 'London',
      state: null,
      company_name: 'Engines Ltd',
      phone: '+44 20 0000',
      country: 'gb',
      products: { TEAM_MEMBERS: { quantity: 5 } },
    });
    expect(created).toEqual({ access_url: 'https://portal.test.invalid/access/ada%40example.com' });
    expect((await f.client.getAccountListV2()).data).toContainEqual({ email: 'ada@example.com' });

    const account = await f.client.getAccountV2('ada@example.com');
    expect(account).toEqual({
      email: 'ada@example.com',
      model: 'DEVICE',
      account_status: 'ACTIVE',
      country: 'GB',
      first_name: 'Ada',
      last_name: 'Lovelace',
      city: 'London',
      state: null,
      company_name: 'Engines Ltd',
      phone: '+44 20 0000',
      privacy_policy: '1.0',
      terms_and_conditions: '1.0',
      creation_time: '2026-01-15T12:00:00.000Z',
      // Created ACTIVE: no trial, so it ended at creation.
      end_of_trial_time: '2026-01-15T12:00:00.000Z',
      last_status_change: '2026-01-15T12:00:00.000Z',
      access_url: 'https://portal.test.invalid/access/ada%40example.com',
      // MANAGED_DEVICES was left out of the create body: 0.
      products: { TEAM_MEMBERS: { quantity: 5, used: 0 }, MANAGED_DEVICES: { quantity: 0, used: 0 } },
    });

    // `used` comes from the embedding program, never from the API.
    await setMarketplaceUsage(f.store, 'ada@example.com', 'TEAM_MEMBERS', 4);
    expect((await f.client.getAccountV2('ADA@example.com')).products.TEAM_MEMBERS).toEqual({ quantity: 5, used: 4 });
  });

  it('changes the status (204), recording the change and its time once', async () => {
    await f.client.createAccountV2(deviceAccount('trial@example.com', { account_status: 'TRIAL' }));
    const before = await f.client.getAccountV2('trial@example.com');
    expect(before.end_of_trial_time).toBe('2026-01-29T12:00:00.000Z'); // trialDays 14
    f.clock.now += 2 * DAY;
    await expect(f.client.updateAccountStatusV2('trial@example.com', 'ACTIVE')).resolves.toBeUndefined();
    const after = await f.client.getAccountV2('trial@example.com');
    expect(after.account_status).toBe('ACTIVE');
    expect(after.last_status_change).toBe('2026-01-17T12:00:00.000Z');
    // Leaving TRIAL early ends the trial then.
    expect(after.end_of_trial_time).toBe('2026-01-17T12:00:00.000Z');
    f.clock.now += DAY;
    // The same status again changes nothing.
    await f.client.updateAccountStatusV2('trial@example.com', 'ACTIVE');
    expect((await f.client.getAccountV2('trial@example.com')).last_status_change).toBe('2026-01-17T12:00:00.000Z');
    await f.client.updateAccountStatusV2('trial@example.com', 'SUSPENDED');
    const id = await f.store.statement('SELECT id FROM marketplace_accounts WHERE email = ?').get('trial@example.com') as { id: number };
    expect((await getMarketplaceHistory(f.store, id.id)).statuses).toEqual([
      { time: Date.UTC(2026, 0, 15, 12), accountStatus: 'TRIAL' },
      { time: Date.UTC(2026, 0, 17, 12), accountStatus: 'ACTIVE' },
      { time: Date.UTC(2026, 0, 18, 12), accountStatus: 'SUSPENDED' },
    ]);
    f.clock.now = Date.UTC(2026, 0, 15, 12);
  });

  it('updates products: given ones change, left-out and null ones keep their quantity', async () => {
    await f.client.createAccountV2(deviceAccount('prod@example.com'));
    await f.client.updateAccountProductsV2('prod@example.com', { products: { MANAGED_DEVICES: { quantity: 80 } } });
    expect((await f.client.getAccountV2('prod@example.com')).products).toEqual({
      TEAM_MEMBERS: { quantity: 3, used: 0 },
      MANAGED_DEVICES: { quantity: 80, used: 0 },
    });
    await f.client.updateAccountProductsV2('prod@example.com', { products: { TEAM_MEMBERS: { quantity: 0 }, MANAGED_DEVICES: null } });
    expect((await f.client.getAccountV2('prod@example.com')).products).toEqual({
      TEAM_MEMBERS: { quantity: 0, used: 0 },
      MANAGED_DEVICES: { quantity: 80, used: 0 },
    });
    await f.client.updateAccountProductsV2('prod@example.com', { products: {} });
    expect((await f.client.getAccountV2('prod@example.com')).products.MANAGED_DEVICES!.quantity).toBe(80);
  });

  it('answers the configured agreements', async () => {
    const expected = {
      privacy_policy: { version: '2026-01', url: 'https://legal.test.invalid/privacy/2026-01' },
      terms_and_conditions: { version: '7', url: 'https://legal.test.invalid/terms/7' },
    };
    expect(await f.client.getPrivacyPolicyV2()).toEqual(expected);
    expect(await f.client.getPrivacyPolicy()).toEqual(expected);
  });

  it('refuses a second account with the same e-mail, in any letter case, with 409', async () => {
    await f.client.createAccountV2(deviceAccount('dup@example.com'));
    const error = await rejection(f.client.createAccountV2(deviceAccount('DUP@example.com')));
    expect(error).toBeInstanceOf(MarketplaceConflictError);
    expect((error as MarketplaceConflictError).status).toBe(409);
    expect((error as MarketplaceConflictError).body).toEqual({ detail: 'a marketplace account with the e-mail DUP@example.com already exists' });
    // Across versions too: one account list.
    await expect(f.client.createAccount(locationAccount('dup@example.com'))).rejects.toBeInstanceOf(MarketplaceConflictError);
  });
});

describe('unknown accounts and keys', () => {
  it('answers 404 {detail} for every operation on an unknown account, in both versions', async () => {
    const missing = 'nobody@example.com';
    const calls: Array<() => Promise<unknown>> = [
      () => f.client.getAccountV2(missing),
      () => f.client.updateAccountStatusV2(missing, 'ACTIVE'),
      () => f.client.updateAccountProductsV2(missing, { products: { TEAM_MEMBERS: { quantity: 1 } } }),
      () => f.client.getAccount(missing),
      () => f.client.updateAccountStatus(missing, 'ACTIVE'),
      () => f.client.updateAccountProducts(missing, { products: { AGENTS: { quantity: 1 } } }),
    ];
    for (const call of calls) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(MarketplaceNotFoundError);
      expect((error as MarketplaceNotFoundError).body).toEqual({ detail: 'no marketplace account with the e-mail nobody@example.com' });
    }
  });

  it('answers 401 {detail} without a key or with a wrong one, for every operation', async () => {
    const noKey = await fetch(`${f.server.url}/marketplace-api/v2/account`);
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toEqual({ detail: 'missing X-Api-Key header' });
    const wrong = new MarketplaceClient({ baseUrl: f.server.url, apiKey: 'not-the-key' });
    const calls: Array<() => Promise<unknown>> = [
      () => wrong.getAccountListV2(),
      () => wrong.createAccountV2(deviceAccount('k@example.com')),
      () => wrong.getAccountV2('ada@example.com'),
      () => wrong.updateAccountStatusV2('ada@example.com', 'ACTIVE'),
      () => wrong.updateAccountProductsV2('ada@example.com', { products: {} }),
      () => wrong.getPrivacyPolicyV2(),
      () => wrong.getBillingReportV2(2026, 1),
      () => wrong.getAccountList(),
      () => wrong.createAccount(locationAccount('k@example.com')),
      () => wrong.getAccount('ada@example.com'),
      () => wrong.updateAccountStatus('ada@example.com', 'ACTIVE'),
      () => wrong.updateAccountProducts('ada@example.com', { products: {} }),
      () => wrong.getPrivacyPolicy(),
      () => wrong.getBillingReport(2026, 1),
    ];
    expect(calls.length).toBe(marketplaceClientOperations.length - 1); // all but get_status (served by serve / the agent)
    for (const call of calls) {
      const error = await rejection(call());
      expect(error).toBeInstanceOf(MarketplaceAuthError);
      expect((error as MarketplaceAuthError).body).toEqual({ detail: 'invalid API key' });
    }
    await wrong.close();
    // Nothing was created by the refused calls.
    expect((await f.client.getAccountListV2()).data.map((a) => a.email)).not.toContain('k@example.com');
  });

  it('answers 404 {detail} for a path that is no operation', async () => {
    const response = await fetch(`${f.server.url}/marketplace-api/v2/accounts`, { headers: { 'x-api-key': MARKET_KEY } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'no operation at GET /marketplace-api/v2/accounts' });
  });
});

describe('version 1 versus version 2', () => {
  it('v1 create makes a LOCATION account with TEAM_MEMBERS, AGENTS and MSP_INTEGRATIONS', async () => {
    const created = await f.client.createAccount(locationAccount('loc@example.com', { products: { AGENTS: { quantity: 4 }, MSP_INTEGRATIONS: null } }));
    expect(created.access_url).toBe('https://portal.test.invalid/access/loc%40example.com');
    const v1 = await f.client.getAccount('loc@example.com');
    expect(v1.model).toBe('LOCATION');
    expect(v1.products).toEqual({
      TEAM_MEMBERS: { quantity: 0, used: 0 },
      AGENTS: { quantity: 4, used: 0 },
      MSP_INTEGRATIONS: { quantity: 0, used: 0 },
    });
    // Both versions read the same record, and list the same accounts.
    expect(await f.client.getAccountV2('loc@example.com')).toEqual(v1);
    expect(await f.client.getAccountList()).toEqual(await f.client.getAccountListV2());
  });

  it('v1 updates MSP_INTEGRATIONS of a LOCATION account; v2 updates its AGENTS but cannot name MSP_INTEGRATIONS', async () => {
    await f.client.updateAccountProducts('loc@example.com', { products: { MSP_INTEGRATIONS: { quantity: 2 }, AGENTS: { quantity: 6 } } });
    await f.client.updateAccountProductsV2('loc@example.com', { products: { AGENTS: { quantity: 7 }, TEAM_MEMBERS: { quantity: 1 } } });
    expect((await f.client.getAccountV2('loc@example.com')).products).toEqual({
      TEAM_MEMBERS: { quantity: 1, used: 0 },
      AGENTS: { quantity: 7, used: 0 },
      MSP_INTEGRATIONS: { quantity: 2, used: 0 },
    });
    const error = (await rejection(
      f.client.updateAccountProductsV2('loc@example.com', { products: { MSP_INTEGRATIONS: { quantity: 3 } } } as never),
    )) as MarketplaceValidationError;
    expect(error.detail).toEqual([
      {
        loc: ['body', 'products', 'MSP_INTEGRATIONS'],
        msg: 'unknown product key "MSP_INTEGRATIONS": this v2 body accepts TEAM_MEMBERS, AGENTS, MANAGED_DEVICES',
        type: 'extra_forbidden',
      },
    ]);
  });

  it('a v2 products update outside the account model is a 422 naming the key and the model', async () => {
    const error = (await rejection(
      f.client.updateAccountProductsV2('loc@example.com', { products: { MANAGED_DEVICES: { quantity: 9 }, AGENTS: { quantity: 1 } } }),
    )) as MarketplaceValidationError;
    expect(error).toBeInstanceOf(MarketplaceValidationError);
    expect(error.detail).toEqual([
      {
        loc: ['body', 'products', 'MANAGED_DEVICES'],
        msg: "MANAGED_DEVICES is not a product of this account's model LOCATION (its products: TEAM_MEMBERS, AGENTS, MSP_INTEGRATIONS)",
        type: 'model_mismatch',
      },
    ]);
    // Nothing of the refused request was applied.
    expect((await f.client.getAccount('loc@example.com')).products.AGENTS!.quantity).toBe(7);
  });

  it('a v1 products update on a DEVICE account may set TEAM_MEMBERS only', async () => {
    await f.client.createAccountV2(deviceAccount('dev1@example.com'));
    await f.client.updateAccountProducts('dev1@example.com', { products: { TEAM_MEMBERS: { quantity: 9 } } });
    expect((await f.client.getAccount('dev1@example.com')).products.TEAM_MEMBERS!.quantity).toBe(9);
    const error = (await rejection(
      f.client.updateAccountProducts('dev1@example.com', { products: { AGENTS: { quantity: 1 }, MSP_INTEGRATIONS: { quantity: 1 } } }),
    )) as MarketplaceValidationError;
    expect(error.detail.map((d) => [d.loc, d.type])).toEqual([
      [['body', 'products', 'AGENTS'], 'model_mismatch'],
      [['body', 'products', 'MSP_INTEGRATIONS'], 'model_mismatch'],
    ]);
    expect(error.detail[0]!.msg).toContain('model DEVICE (its products: TEAM_MEMBERS, MANAGED_DEVICES)');
  });

  it('v1 and v2 create bodies accept only their own product keys', async () => {
    const v2 = (await rejection(
      f.client.createAccountV2(deviceAccount('x2@example.com', { products: { AGENTS: { quantity: 1 } } })),
    )) as MarketplaceValidationError;
    expect(v2.detail).toEqual([
      { loc: ['body', 'products', 'AGENTS'], msg: 'unknown product key "AGENTS": this v2 body accepts TEAM_MEMBERS, MANAGED_DEVICES', type: 'extra_forbidden' },
    ]);
    const v1 = (await rejection(
      f.client.createAccount(locationAccount('x1@example.com', { products: { MANAGED_DEVICES: { quantity: 1 } } })),
    )) as MarketplaceValidationError;
    expect(v1.detail).toEqual([
      {
        loc: ['body', 'products', 'MANAGED_DEVICES'],
        msg: 'unknown product key "MANAGED_DEVICES": this v1 body accepts TEAM_MEMBERS, AGENTS, MSP_INTEGRATIONS',
        type: 'extra_forbidden',
      },
    ]);
  });
});

const defaults = await startMarketplaceFixture();

describe('defaults', () => {
  it('answers the default agreements, marketplace name and access URL base', async () => {
    const { client } = defaults;
    expect(await client.getPrivacyPolicyV2()).toEqual(DEFAULT_AGREEMENTS);
    const created = await client.createAccountV2(deviceAccount('a+b@example.com', { account_status: 'TRIAL' }));
    expect(created.access_url).toBe('https://portal.driverbox.invalid/marketplace/access/a%2Bb%40example.com');
    const account = await client.getAccountV2('a+b@example.com');
    // 30 days of trial by default.
    expect(Date.parse(account.end_of_trial_time) - Date.parse(account.creation_time)).toBe(30 * DAY);
    expect((await client.getBillingReportV2(2026, 1)).metadata.marketplace).toBe('driverbox');
  });
});
