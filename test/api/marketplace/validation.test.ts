// Every validation rule of the Marketplace API through MarketplaceClient: 422 with
// {detail: [{loc, msg, type}]}, each bad field reported at its own loc, nothing applied.
import { describe, expect, it } from 'vitest';
import { MarketplaceValidationError, type ValidationProblem } from '../../../host/api/marketplace/client/index.js';
import { deviceAccount, locationAccount, MARKET_KEY, startMarketplaceFixture } from '../../helpers/marketplace.js';

const f = await startMarketplaceFixture();
await f.client.createAccountV2(deviceAccount('dev@example.com'));
await f.client.createAccount(locationAccount('loc@example.com'));

/** The 422's problems as [loc joined by ".", type]; fails when the call does not answer 422. */
async function problems(call: () => Promise<unknown>): Promise<ValidationProblem[]> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(MarketplaceValidationError);
    expect((error as MarketplaceValidationError).status).toBe(422);
    return (error as MarketplaceValidationError).detail;
  }
  throw new Error('expected a 422');
}
const where = (list: ValidationProblem[]) => list.map((p) => [p.loc.join('.'), p.type]);

describe('create bodies', () => {
  it('country: longer than 2, not two letters, not a string, missing', async () => {
    const long = await problems(() => f.client.createAccountV2(deviceAccount('c1@example.com', { country: 'ITA' })));
    expect(long).toEqual([
      { loc: ['body', 'country'], msg: 'must have at most 2 characters (an ISO-3166 alpha-2 code), got "ITA"', type: 'string_too_long' },
    ]);
    expect(where(await problems(() => f.client.createAccountV2(deviceAccount('c2@example.com', { country: 'I1' }))))).toEqual([['body.country', 'value_error']]);
    expect(where(await problems(() => f.client.createAccount(locationAccount('c3@example.com', { country: 39 }))))).toEqual([['body.country', 'string_type']]);
    expect(where(await problems(() => f.client.createAccount(locationAccount('c4@example.com', { country: undefined }))))).toEqual([['body.country', 'missing']]);
  });

  it('quantity: negative, not an integer, a numeric string, a boolean, missing, too large; extra fields in a product', async () => {
    const list = await problems(() =>
      f.client.createAccount(
        locationAccount('q@example.com', {
          products: { TEAM_MEMBERS: { quantity: -1 }, AGENTS: { quantity: 1.5 }, MSP_INTEGRATIONS: { quantity: '5' } },
        }),
      ),
    );
    expect(list).toEqual([
      { loc: ['body', 'products', 'TEAM_MEMBERS', 'quantity'], msg: 'must be >= 0, got -1', type: 'greater_than_equal' },
      { loc: ['body', 'products', 'AGENTS', 'quantity'], msg: 'must be an integer, got 1.5', type: 'int_type' },
      { loc: ['body', 'products', 'MSP_INTEGRATIONS', 'quantity'], msg: 'must be an integer, got "5"', type: 'int_type' },
    ]);
    const more = await problems(() =>
      f.client.createAccountV2(
        deviceAccount('q2@example.com', { products: { TEAM_MEMBERS: { quantity: true }, MANAGED_DEVICES: { used: 3 } } }),
      ),
    );
    expect(where(more)).toEqual([
      ['body.products.TEAM_MEMBERS.quantity', 'int_type'],
      ['body.products.MANAGED_DEVICES.used', 'extra_forbidden'],
      ['body.products.MANAGED_DEVICES.quantity', 'missing'],
    ]);
    expect(where(await problems(() => f.client.createAccountV2(deviceAccount('q3@example.com', { products: { TEAM_MEMBERS: { quantity: 2 ** 31 } } }))))).toEqual([
      ['body.products.TEAM_MEMBERS.quantity', 'less_than_equal'],
    ]);
    expect(where(await problems(() => f.client.createAccountV2(deviceAccount('q4@example.com', { products: { TEAM_MEMBERS: 4 } }))))).toEqual([
      ['body.products.TEAM_MEMBERS', 'model_type'],
    ]);
    expect(where(await problems(() => f.client.createAccountV2(deviceAccount('q5@example.com', { products: [] }))))).toEqual([['body.products', 'model_type']]);
    expect(where(await problems(() => f.client.createAccountV2(deviceAccount('q6@example.com', { products: undefined }))))).toEqual([['body.products', 'missing']]);
  });

  it('account_status: unknown value, missing', async () => {
    const list = await problems(() => f.client.createAccountV2(deviceAccount('s@example.com', { account_status: 'CANCELLED' })));
    expect(list).toEqual([
      { loc: ['body', 'account_status'], msg: 'must be one of TRIAL, ACTIVE, SUSPENDED, TRIAL_EXPIRED, got "CANCELLED"', type: 'enum' },
    ]);
    expect(where(await problems(() => f.client.createAccountV2(deviceAccount('s2@example.com', { account_status: undefined }))))).toEqual([
      ['body.account_status', 'missing'],
    ]);
  });

  it('e-mail, agreements, optional strings, unknown fields: every bad field of one body reported at once', async () => {
    const list = await problems(() =>
      f.client.createAccountV2({
        email: 'not an e-mail',
        country: 'ITALY',
        account_status: 'OPEN',
        privacy_policy: '',
        products: { TEAM_MEMBERS: { quantity: -3 }, AGENTS: { quantity: 1 } },
        first_name: 7,
        phone: ['+39'],
        nickname: 'x',
      } as never),
    );
    expect(where(list)).toEqual([
      ['body.nickname', 'extra_forbidden'],
      ['body.email', 'value_error'],
      ['body.country', 'string_too_long'],
      ['body.products.TEAM_MEMBERS.quantity', 'greater_than_equal'],
      ['body.products.AGENTS', 'extra_forbidden'],
      ['body.account_status', 'enum'],
      ['body.privacy_policy', 'string_too_short'],
      ['body.terms_and_conditions', 'missing'],
      ['body.first_name', 'string_type'],
      ['body.phone', 'string_type'],
    ]);
    expect(list[1]!.msg).toBe('must be an e-mail address (name@domain.tld), got "not an e-mail"');
    // Nothing was created.
    expect((await f.client.getAccountListV2()).data).toEqual([{ email: 'dev@example.com' }, { email: 'loc@example.com' }]);
  });

  it('a missing, non-object or non-JSON body', async () => {
    const send = (body: string | undefined, type = 'application/json') =>
      fetch(`${f.server.url}/marketplace-api/v2/account`, { method: 'POST', headers: { 'x-api-key': MARKET_KEY, ...(body === undefined ? {} : { 'content-type': type }) }, body });
    const none = await send(undefined);
    expect(none.status).toBe(422);
    expect(await none.json()).toEqual({ detail: [{ loc: ['body'], msg: 'field required: the request needs a JSON body', type: 'missing' }] });
    const array = await send('[1]');
    expect(array.status).toBe(422);
    expect(await array.json()).toEqual({ detail: [{ loc: ['body'], msg: 'must be a JSON object, not an array', type: 'model_type' }] });
    const broken = await send('{"email": ');
    expect(broken.status).toBe(422);
    const body = (await broken.json()) as { detail: ValidationProblem[] };
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
  });
});

describe('path parameters', () => {
  it('a malformed e-mail in the path is a 422 for every account operation, in both versions', async () => {
    const bad = 'not-an-email';
    const calls = [
      () => f.client.getAccountV2(bad),
      () => f.client.updateAccountStatusV2(bad, 'ACTIVE'),
      () => f.client.updateAccountProductsV2(bad, { products: {} }),
      () => f.client.getAccount(bad),
      () => f.client.updateAccountStatus(bad, 'ACTIVE'),
      () => f.client.updateAccountProducts(bad, { products: {} }),
    ];
    for (const call of calls) {
      expect(await problems(call)).toEqual([
        { loc: ['path', 'email'], msg: 'must be an e-mail address (name@domain.tld), got "not-an-email"', type: 'value_error' },
      ]);
    }
    for (const other of ['a@b', '@example.com', 'two@@example.com', 'sp ace@example.com']) {
      expect(where(await problems(() => f.client.getAccountV2(other)))).toEqual([['path.email', 'value_error']]);
    }
  });

  it('month outside 1–12, not an integer; year out of range; both at once', async () => {
    for (const [year, month, expected] of [
      [2026, 0, [['path.month', 'greater_than_equal']]],
      [2026, 13, [['path.month', 'less_than_equal']]],
      [1969, 5, [['path.year', 'greater_than_equal']]],
      [10000, 5, [['path.year', 'less_than_equal']]],
      [0, 99, [['path.year', 'greater_than_equal'], ['path.month', 'less_than_equal']]],
    ] as const) {
      expect(where(await problems(() => f.client.getBillingReportV2(year, month)))).toEqual(expected);
      expect(where(await problems(() => f.client.getBillingReport(year, month)))).toEqual(expected);
    }
    expect(await problems(() => f.client.getBillingReportV2(2026, 'may' as never))).toEqual([
      { loc: ['path', 'month'], msg: 'must be an integer, got "may"', type: 'int_parsing' },
    ]);
    expect(await problems(() => f.client.getBillingReportV2(2026, 13))).toEqual([
      { loc: ['path', 'month'], msg: 'must be from 1 to 12, got 13', type: 'less_than_equal' },
    ]);
    expect(where(await problems(() => f.client.getBillingReportV2(2026.5, 1)))).toEqual([['path.year', 'int_parsing']]);
  });
});

describe('update bodies', () => {
  it('status update: unknown status, missing, extra fields', async () => {
    expect(await problems(() => f.client.updateAccountStatusV2('dev@example.com', 'GONE' as never))).toEqual([
      { loc: ['body', 'account_status'], msg: 'must be one of TRIAL, ACTIVE, SUSPENDED, TRIAL_EXPIRED, got "GONE"', type: 'enum' },
    ]);
    const raw = await fetch(`${f.server.url}/marketplace-api/v1/account/dev%40example.com/status`, {
      method: 'PUT',
      headers: { 'x-api-key': MARKET_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'ACTIVE' }),
    });
    expect(raw.status).toBe(422);
    expect(where(((await raw.json()) as { detail: ValidationProblem[] }).detail)).toEqual([
      ['body.status', 'extra_forbidden'],
      ['body.account_status', 'missing'],
    ]);
    expect((await f.client.getAccountV2('dev@example.com')).account_status).toBe('ACTIVE');
  });

  it('products update: unknown keys, bad quantities, missing products, all reported; nothing applied', async () => {
    const list = await problems(() =>
      f.client.updateAccountProductsV2('dev@example.com', {
        products: { TEAM_MEMBERS: { quantity: -1 }, MANAGED_DEVICES: { quantity: 'ten' }, SEATS: { quantity: 1 } },
      } as never),
    );
    expect(list).toEqual([
      { loc: ['body', 'products', 'TEAM_MEMBERS', 'quantity'], msg: 'must be >= 0, got -1', type: 'greater_than_equal' },
      { loc: ['body', 'products', 'MANAGED_DEVICES', 'quantity'], msg: 'must be an integer, got "ten"', type: 'int_type' },
      { loc: ['body', 'products', 'SEATS'], msg: 'unknown product key "SEATS": this v2 body accepts TEAM_MEMBERS, AGENTS, MANAGED_DEVICES', type: 'extra_forbidden' },
    ]);
    expect(where(await problems(() => f.client.updateAccountProducts('loc@example.com', {} as never)))).toEqual([['body.products', 'missing']]);
    expect((await f.client.getAccountV2('dev@example.com')).products).toEqual({
      TEAM_MEMBERS: { quantity: 3, used: 0 },
      MANAGED_DEVICES: { quantity: 50, used: 0 },
    });
  });

  it('a null product outside the model is the same as leaving it out (no model check)', async () => {
    await f.client.updateAccountProductsV2('loc@example.com', { products: { MANAGED_DEVICES: null, AGENTS: { quantity: 8 } } });
    expect((await f.client.getAccount('loc@example.com')).products.AGENTS!.quantity).toBe(8);
  });

  it('an invalid request about an unknown account is a 422 (validation comes first), a valid one a 404', async () => {
    expect(where(await problems(() => f.client.updateAccountStatusV2('ghost@example.com', 'NOPE' as never)))).toEqual([['body.account_status', 'enum']]);
    await expect(f.client.updateAccountStatusV2('ghost@example.com', 'ACTIVE')).rejects.toMatchObject({ status: 404 });
  });
});
