// Placeholder: the agents operation group is being built.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

export function registerAgentRoutes(_app: FastifyInstance, _ctx: ApiContext): void {}
