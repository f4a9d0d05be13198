// Accounts: list, create, retrieve, status update and products update, for one API version
// (the versions differ in the create model and the product keys of the write bodies).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  createMarketplaceAccount,
  getMarketplaceAccount,
  listMarketplaceAccounts,
  setMarketplaceQuantities,
  setMarketplaceStatus,
  type MarketplaceAccountRow,
} from '../../../store/marketplace/accounts.js';
import type { MarketplaceContext } from '../context.js';
import { accountNotFound, validationFailed } from '../http-error.js';
import { accessUrl, presentAccount } from '../present.js';
import type { AccountCreateResult, AccountList } from '../types.js';
import { checkCreateBody, checkEmailParam, checkModelFit, checkProductsBody, checkStatusBody, Problems, type ApiVersion } from '../validate.js';

type EmailRequest = FastifyRequest<{ Params: { email: string } }>;

/** The account of the path, looked up only when the e-mail is well formed. */
async function accountOfPath(ctx: MarketplaceContext, request: EmailRequest, problems: Problems): Promise<{ email?: string; account?: MarketplaceAccountRow }> {
  const email = checkEmailParam(request.params.email, problems);
  return { email, account: email === undefined ? undefined : await getMarketplaceAccount(ctx.store, email) };
}

/**
 * Validation problems first (all of them: path, body and, when the account exists, the model
 * fit), then the unknown account: a request that is wrong and about a missing account is a 422.
 */
function settle(problems: Problems, email: string | undefined, account: MarketplaceAccountRow | undefined): MarketplaceAccountRow {
  if (!problems.empty) throw validationFailed(problems.list);
  if (!account) throw accountNotFound(email!);
  return account;
}

export function registerAccountRoutes(api: FastifyInstance, ctx: MarketplaceContext, version: ApiVersion): void {
  api.get('/account', async (): Promise<AccountList> => ({
    data: (await listMarketplaceAccounts(ctx.store)).map((account) => ({ email: account.email })),
  }));

  api.post('/account', async (request, reply) => {
    const problems = new Problems();
    const input = checkCreateBody(request.body, version, problems);
    if (!input) throw validationFailed(problems.list);
    // A taken e-mail is the store's CONFLICT: 409.
    const account = await createMarketplaceAccount(ctx.store, { ...input, trialDays: ctx.trialDays });
    const body: AccountCreateResult = { access_url: accessUrl(ctx.accessUrlBase, account.email) };
    return reply.code(201).send(body);
  });

  api.get('/account/:email', async (request: EmailRequest) => {
    const problems = new Problems();
    const { email, account } = await accountOfPath(ctx, request, problems);
    return presentAccount(settle(problems, email, account), ctx.accessUrlBase);
  });

  api.put('/account/:email/status', async (request: EmailRequest, reply) => {
    const problems = new Problems();
    const { email, account } = await accountOfPath(ctx, request, problems);
    const status = checkStatusBody(request.body, problems);
    settle(problems, email, account);
    await setMarketplaceStatus(ctx.store, email!, status!);
    return reply.code(204).send();
  });

  api.put('/account/:email/products', async (request: EmailRequest, reply) => {
    const problems = new Problems();
    const { email, account } = await accountOfPath(ctx, request, problems);
    const quantities = checkProductsBody(request.body, version, problems);
    if (account && quantities) checkModelFit(quantities, account.model, problems);
    settle(problems, email, account);
    await setMarketplaceQuantities(ctx.store, email!, quantities!);
    return reply.code(204).send();
  });
}
