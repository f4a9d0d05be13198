// The Marketplace API's error bodies. The spec shows only the 422 body, {detail: [{loc, msg,
// type}]}; every other failure here answers {detail: "<message>"} in the same style (401
// without a key, 404 for an unknown account, 409 for a taken e-mail), documented in
// docs/reference/marketplace-api.md.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../monitoring/api-error.js';
import { StoreError } from '../../contract/errors.js';
import type { ValidationProblem } from './types.js';

export class MarketplaceHttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationProblem[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.name = 'MarketplaceHttpError';
  }
}

export const validationFailed = (problems: ValidationProblem[]) => new MarketplaceHttpError(422, problems);

export const accountNotFound = (email: string) => new MarketplaceHttpError(404, `no marketplace account with the e-mail ${email}`);

function toHttpError(error: FastifyError | Error): MarketplaceHttpError {
  if (error instanceof MarketplaceHttpError) return error;
  // The API-key check is the Monitoring API's hook; only its body shape differs here.
  if (error instanceof ApiError) return new MarketplaceHttpError(error.status, error.message);
  if (error instanceof StoreError) {
    if (error.code === 'NOT_FOUND') return new MarketplaceHttpError(404, error.message);
    if (error.code === 'CONFLICT') return new MarketplaceHttpError(409, error.message);
    if (error.code === 'INVALID') return validationFailed([{ loc: ['body'], msg: error.message, type: 'value_error' }]);
  }
  const fastifyError = error as FastifyError;
  // A body that is not JSON is a validation problem of the body, as the spec's 422 covers "body".
  if (fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return validationFailed([{ loc: ['body'], msg: 'field required: the request needs a JSON body', type: 'missing' }]);
  if (fastifyError.statusCode === 400 && (error instanceof SyntaxError || /JSON/i.test(error.message))) {
    return validationFailed([{ loc: ['body'], msg: `invalid JSON: ${error.message}`, type: 'json_invalid' }]);
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) return new MarketplaceHttpError(status, error.message);
  return new MarketplaceHttpError(500, 'the server failed to answer this request; see its log');
}

/** The error handler and the 404 of unknown paths, for the plugin's own scope. */
export function installMarketplaceErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const httpError = toHttpError(error);
    if (httpError.status >= 500) request.log.error({ err: error }, 'marketplace request failed');
    void reply.code(httpError.status).type('application/json').send({ detail: httpError.detail });
  });
}
