// reEnableCustomDriverAssociations (tag "Custom Drivers", 1.14.0): real. Associations the system
// disabled because they failed are enabled again (with include_unrecoverable, also those it
// found unable to recover); the agent schedules them at once (onStoreChanged). Associations
// the inventory disables (enabled: false) are configuration, not failure: they stay disabled.
import type { FastifyInstance } from 'fastify';
import { listAgents } from '../../../store/fleet/agents.js';
import { reEnableAssociations } from '../../../store/drivers/association-status.js';
import type { ApiContext } from '../context.js';
import type { ApiRouteSchema } from '../route-schema.js';

export function registerAssociationReEnableRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;
  const schema: ApiRouteSchema = {
    operationId: 'reEnableCustomDriverAssociations',
    tags: ['Custom Drivers'],
    summary: 'Re-enables the associations disabled by failure, of every agent that allows API access',
    querystring: {
      type: 'object',
      properties: {
        include_unrecoverable: { type: 'boolean', default: false, description: 'Also those found unable to recover (e.g. missing credentials)' },
      },
    },
    response: { 204: { type: 'null' } },
  };
  app.post<{ Querystring: { include_unrecoverable?: boolean } }>('/custom-driver/association/re-enable', { schema }, async (request, reply) => {
    const agentIds = (await listAgents(store))
      .filter((a) => a.apiEnabled)
      .map((a) => a.id);
    await reEnableAssociations(store, { includeUnrecoverable: request.query.include_unrecoverable, agentIds });
    return reply.code(204).send();
  });
}
