// meta: the OpenAPI document of this server.
import type { FastifyInstance } from 'fastify';
import type { ApiRouteSchema } from '../route-schema.js';

export function registerMetaRoutes(app: FastifyInstance, document: () => Record<string, unknown>): void {
  const schema: ApiRouteSchema = {
    operationId: 'getOpenApiDefinition',
    tags: ['meta'],
    summary: 'The OpenAPI 3 document of the operations this server implements',
  };
  app.get('/meta/open-api-definition', { schema }, async () => document());
}
