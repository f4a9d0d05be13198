// Placeholder: the rtd-speed operation group is being built.
import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

export function registerRtdSpeedRoutes(_app: FastifyInstance, _ctx: ApiContext): void {}
