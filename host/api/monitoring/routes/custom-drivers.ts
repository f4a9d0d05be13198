// Placeholder: the custom-drivers operation group is being built.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

export function registerCustomDriverRoutes(_app: FastifyInstance, _ctx: ApiContext): void {}
