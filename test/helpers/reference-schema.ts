// Validates answers against the Domotz Public API reference 1.14.0: the JSON Schemas that
// scripts/reference-schemas.mjs derived from it (test/fixtures/public-api-1.14.0/reference.json).
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';

export interface ReferenceOperation {
  operationId: string;
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to /public-api/v1, with {name} path parameters. */
  path: string;
  tag: string;
  deprecated: boolean;
  /** The success status of the reference (200, 201, 202 or 204). */
  status: number;
  /** The answer's schema as the reference names it ('AgentDetail', 'array of AgentBase', 'inline'); null: no body. */
  schema: string | null;
  body: Record<string, unknown> | null;
}

interface ReferenceFile {
  version: string;
  operations: ReferenceOperation[];
  definitions: Record<string, Record<string, unknown>>;
}

const reference = JSON.parse(
  readFileSync(new URL('../fixtures/public-api-1.14.0/reference.json', import.meta.url), 'utf8'),
) as ReferenceFile;

export const referenceVersion = reference.version;
export const referenceOperations: readonly ReferenceOperation[] = reference.operations;
export const referenceDefinitions: Readonly<Record<string, Record<string, unknown>>> = reference.definitions;

// Not strict: the derived schemas carry descriptions and if/then without types; allErrors: a failure lists them all.
const ajv = new Ajv({ allErrors: true, strict: false });
// ajv-formats is CommonJS: its default export is the plugin, which also carries itself as `.default`.
formatsModule.default(ajv);
// The project's spec (monitoring-public-api.md) writes date-times yyyy-mm-ddThh:mm:ss in UTC, without a zone; RFC 3339
// (format "date-time") wants one. A real instant either way: the zone is optional, the date and time must exist.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/i;
ajv.addFormat('date-time', {
  type: 'string',
  validate: (text: string) => {
    const m = DATE_TIME.exec(text);
    if (!m) return false;
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
    return at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
  },
});
ajv.addSchema({ $id: 'reference', definitions: reference.definitions });

const validators = new Map<string, ValidateFunction>();

function operation(operationId: string): ReferenceOperation {
  const op = reference.operations.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`${operationId} is not an operation of reference ${reference.version}`);
  return op;
}

function validator(op: ReferenceOperation): ValidateFunction {
  let validate = validators.get(op.operationId);
  if (!validate) {
    // The answer's schema refers to '#/definitions/X': rebase it on the shared definitions.
    const body = JSON.parse(JSON.stringify(op.body).replaceAll('"#/definitions/', '"reference#/definitions/')) as object;
    validate = ajv.compile(body);
    validators.set(op.operationId, validate);
  }
  return validate;
}

function describe(error: ErrorObject, body: unknown): string {
  const at = error.instancePath === '' ? '(body)' : error.instancePath;
  let value: unknown = body;
  for (const part of error.instancePath.split('/').slice(1)) {
    value = value == null ? undefined : (value as Record<string, unknown>)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  const extra = error.keyword === 'enum' ? ` ${JSON.stringify(error.params.allowedValues)}` : '';
  return `${at} ${error.message}${extra} (got ${JSON.stringify(value)}) [${error.schemaPath}]`;
}

/** Every way `body` departs from the reference's answer of `operationId` (empty: it conforms). */
export function referenceErrors(operationId: string, body: unknown, status = 200): string[] {
  const op = operation(operationId);
  if (status !== op.status) return [`status ${status}, but reference ${reference.version} answers ${op.status}`];
  if (op.body === null) {
    return body === undefined || body === null || body === '' ? [] : [`no body expected, got ${JSON.stringify(body)}`];
  }
  const validate = validator(op);
  if (validate(body)) return [];
  // if/then failures repeat the branch's own errors: keep those only.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if');
  return [...new Set(errors.map((e) => describe(e, body)))];
}

/** Fails, listing every error with its path, unless `body` is what reference 1.14.0 answers for `operationId`. */
export function expectReferenceBody(operationId: string, body: unknown, status = 200): void {
  const errors = referenceErrors(operationId, body, status);
  if (errors.length === 0) return;
  const op = operation(operationId);
  throw new Error(
    `${operationId} (${op.method} ${op.path}) answer does not match reference ${reference.version} ` +
      `${op.schema ?? '(no body)'}:\n  ${errors.join('\n  ')}`,
  );
}
