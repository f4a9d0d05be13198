// Turns every failure into the documented JSON error body: validation problems are 422 with
// each problem located, known errors keep their status, anything else is a 500 whose
// message names no internals (the stack goes to the server log only).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorDetail } from './api-error.js';
import { StoreError } from '../../contract/errors.js';

const WHERE: Record<string, string> = { querystring: 'query', params: 'path', body: 'body', headers: 'header' };

interface AjvIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

function detailOf(issue: AjvIssue, context: string): ErrorDetail {
  const loc: Array<string | number> = [WHERE[context] ?? context];
  for (const part of issue.instancePath.split('/').slice(1)) loc.push(/^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (issue.keyword === 'required' && typeof issue.params.missingProperty === 'string') loc.push(issue.params.missingProperty);
  let msg = issue.message ?? 'is invalid';
  if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) msg = `must be one of ${issue.params.allowedValues.join(', ')}`;
  if (issue.keyword === 'required') msg = 'field required';
  return { loc, msg, type: issue.keyword };
}

export function toApiError(error: FastifyError | Error): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fastifyError.validation) {
    const detail = fastifyError.validation.map((issue) => detailOf(issue, fastifyError.validationContext ?? 'body'));
    const message = detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ');
    return new ApiError(422, 'VALIDATION_ERROR', message, detail);
  }
  if (error instanceof StoreError) {
    if (error.code === 'NOT_FOUND') return new ApiError(404, 'NOT_FOUND', error.message);
    if (error.code === 'CONFLICT') return new ApiError(409, 'CONFLICT', error.message);
    if (error.code === 'INVALID') return new ApiError(422, 'VALIDATION_ERROR', error.message);
    if (error.code === 'SECRET_KEY_MISSING') return new ApiError(503, 'SECRET_KEY_MISSING', error.message);
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    // Fastify's own client errors: malformed JSON, wrong content type, body too large…
    const code = status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST';
    return new ApiError(status === 400 ? 400 : status, code, error.message);
  }
  return new ApiError(500, 'INTERNAL_ERROR', 'the server failed to answer this request; see its log');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.code(apiError.status).type('application/json').send(apiError.body);
  });
  app.setNotFoundHandler(noSuchOperation);
}

/** The not-found handler: a JSON 404 naming the method and path no route serves. */
export function noSuchOperation(request: FastifyRequest, reply: FastifyReply): void {
  void reply
    .code(404)
    .type('application/json')
    .send(new ApiError(404, 'NO_SUCH_OPERATION', `no operation at ${request.method} ${request.url.split('?')[0]}`).body);
}
