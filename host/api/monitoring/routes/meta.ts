// meta: the OpenAPI document of this server.
import type { FastifyInstance } from 'fastify';
import type { ApiRouteSchema } from '../route-schema.js';

export function registerMetaRoutes(app: FastifyInstance, document: () => Record<string, unknown>): void {
  const schema: ApiRouteSchema = {
    operationId: 'getOpenApiDefinition',
    public: true,
    tags: ['meta'],
    summary: 'The OpenAPI 3 document of the operations this server implements',
    // Its 200 is in the document too (every operation has one); the body is passed through whole.
    response: { 200: { type: 'object', description: 'The OpenAPI 3.0.3 document', additionalProperties: true } },
  };
  app.get('/meta/open-api-definition', { schema }, async () => document());
}
