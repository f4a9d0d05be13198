// Placeholder: the history operation group is being built.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

export function registerHistoryRoutes(_app: FastifyInstance, _ctx: ApiContext): void {}
