// Placeholder: the sensors operation group is being built.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

export function registerSensorRoutes(_app: FastifyInstance, _ctx: ApiContext): void {}
