// The current privacy policy and terms and conditions (configured on the plugin).
import type { FastifyInstance } from 'fastify';
import type { MarketplaceContext } from '../context.js';
import type { Agreements } from '../types.js';

export function registerAgreementRoutes(api: FastifyInstance, ctx: MarketplaceContext): void {
  api.get('/agreements', async (): Promise<Agreements> => ({
    privacy_policy: { ...ctx.agreements.privacy_policy },
    terms_and_conditions: { ...ctx.agreements.terms_and_conditions },
  }));
}
