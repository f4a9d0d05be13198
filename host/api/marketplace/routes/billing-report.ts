// The usage report of a calendar month (billing.ts computes it).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { buildUsageReport } from '../billing.js';
import type { MarketplaceContext } from '../context.js';
import { validationFailed } from '../http-error.js';
import type { UsageReport } from '../types.js';
import { checkPeriodParams, Problems } from '../validate.js';

export function registerBillingReportRoutes(api: FastifyInstance, ctx: MarketplaceContext): void {
  api.get('/billing-report/:year/:month', async (request: FastifyRequest<{ Params: { year: string; month: string } }>): Promise<UsageReport> => {
    const problems = new Problems();
    const period = checkPeriodParams(request.params, problems);
    if (!period) throw validationFailed(problems.list);
    return buildUsageReport(ctx.store, period.year, period.month, ctx.marketplace);
  });
}
