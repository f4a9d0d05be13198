// The user the API key belongs to (tag "user"): id 1, named by the server's `user` option.
import type { FastifyInstance } from 'fastify';
import { OWNER_USER_ID } from '../../../store/account/company.js';
import type { ApiContext } from '../context.js';
import type { ApiRouteSchema } from '../route-schema.js';
import { userSchema, type User } from '../schemas/company.js';

export function registerUserRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const schema: ApiRouteSchema = {
    operationId: 'getUser',
    tags: ['user'],
    summary: 'Returns the User information',
    description: "The API key's user: id 1, its name the server's `user` option (default \"api\").",
    response: { 200: userSchema },
  };
  app.get('/user', { schema }, async (): Promise<User> => ({ id: OWNER_USER_ID, name: ctx.user }));
}
