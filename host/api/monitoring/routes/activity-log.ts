// Placeholder: the activity-log operation group is being built.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

export function registerActivityLogRoutes(_app: FastifyInstance, _ctx: ApiContext): void {}
