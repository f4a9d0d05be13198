// Request validation of the Marketplace API. Written out by hand rather than as JSON schemas so
// that every problem of a request is reported at once, each at its exact loc (["body",
// "products", "TEAM_MEMBERS", "quantity"], ["path", "month"]) with a message saying what is
// expected, and so that JSON types are taken strictly ("5" is not a quantity).
import { ACCOUNT_STATUSES, MODEL_PRODUCTS, type AccountModel, type AccountStatus, type NewMarketplaceAccount, type ProductKey } from '../../store/marketplace/accounts.js';
import type { ValidationProblem } from './types.js';

export type Loc = Array<string | number>;

/** The problems found in one request. */
export class Problems {
  readonly list: ValidationProblem[] = [];
  add(loc: Loc, msg: string, type: string): void {
    this.list.push({ loc, msg, type });
  }
  get empty(): boolean {
    return this.list.length === 0;
  }
}

export type ApiVersion = 'v1' | 'v2';

/** The product keys each body accepts (the spec's tables). */
export const CREATE_KEYS: Readonly<Record<ApiVersion, readonly ProductKey[]>> = {
  v2: ['TEAM_MEMBERS', 'MANAGED_DEVICES'],
  v1: ['TEAM_MEMBERS', 'AGENTS', 'MSP_INTEGRATIONS'],
};
export const UPDATE_KEYS: Readonly<Record<ApiVersion, readonly ProductKey[]>> = {
  v2: ['TEAM_MEMBERS', 'AGENTS', 'MANAGED_DEVICES'],
  v1: ['TEAM_MEMBERS', 'AGENTS', 'MSP_INTEGRATIONS'],
};
/** The model an account created through each version has. */
export const CREATE_MODEL: Readonly<Record<ApiVersion, AccountModel>> = { v2: 'DEVICE', v1: 'LOCATION' };

const MAX_QUANTITY = 2147483647;
const MAX_EMAIL_LENGTH = 254;
// One @, no spaces, a dot in the domain: enough to refuse what cannot be an address.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

function checkEmail(value: unknown, loc: Loc, problems: Problems): string | undefined {
  if (typeof value !== 'string') {
    problems.add(loc, `must be a string, not ${describe(value)}`, 'string_type');
    return undefined;
  }
  if (value.length > MAX_EMAIL_LENGTH || !EMAIL.test(value)) {
    problems.add(loc, `must be an e-mail address (name@domain.tld), got ${JSON.stringify(value)}`, 'value_error');
    return undefined;
  }
  return value;
}

/** The {email} path parameter. */
export function checkEmailParam(value: unknown, problems: Problems): string | undefined {
  return checkEmail(value, ['path', 'email'], problems);
}

function checkPathInteger(value: unknown, name: string, min: number, max: number, problems: Problems): number | undefined {
  const text = typeof value === 'string' ? value : '';
  if (!/^[+-]?\d+$/.test(text)) {
    problems.add(['path', name], `must be an integer, got ${JSON.stringify(value)}`, 'int_parsing');
    return undefined;
  }
  const n = Number(text);
  if (n < min || n > max) {
    problems.add(['path', name], `must be from ${min} to ${max}, got ${n}`, n < min ? 'greater_than_equal' : 'less_than_equal');
    return undefined;
  }
  return n;
}

export const YEAR_RANGE = { min: 1970, max: 9999 } as const;

/** {year}/{month} of the billing report. */
export function checkPeriodParams(params: Record<string, unknown>, problems: Problems): { year: number; month: number } | undefined {
  const year = checkPathInteger(params.year, 'year', YEAR_RANGE.min, YEAR_RANGE.max, problems);
  const month = checkPathInteger(params.month, 'month', 1, 12, problems);
  return year === undefined || month === undefined ? undefined : { year, month };
}

/** The body as an object, or a problem at ["body"]. */
function checkBodyObject(body: unknown, problems: Problems): Record<string, unknown> | undefined {
  if (body === undefined) {
    problems.add(['body'], 'field required: the request needs a JSON body', 'missing');
    return undefined;
  }
  if (!isObject(body)) {
    problems.add(['body'], `must be a JSON object, not ${describe(body)}`, 'model_type');
    return undefined;
  }
  return body;
}

/** Fields of an object that the body does not define are refused, so nothing is silently dropped. */
function checkNoExtra(object: Record<string, unknown>, known: readonly string[], loc: Loc, problems: Problems): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) problems.add([...loc, key], `extra field not permitted (known fields: ${known.join(', ')})`, 'extra_forbidden');
  }
}

function checkStatus(value: unknown, loc: Loc, problems: Problems): AccountStatus | undefined {
  if (value === undefined) {
    problems.add(loc, 'field required', 'missing');
    return undefined;
  }
  if (typeof value !== 'string' || !(ACCOUNT_STATUSES as readonly string[]).includes(value)) {
    problems.add(loc, `must be one of ${ACCOUNT_STATUSES.join(', ')}, got ${JSON.stringify(value)}`, 'enum');
    return undefined;
  }
  return value as AccountStatus;
}

function checkRequiredString(object: Record<string, unknown>, field: string, problems: Problems): string | undefined {
  const value = object[field];
  if (value === undefined) {
    problems.add(['body', field], 'field required', 'missing');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(['body', field], `must be a string, not ${describe(value)}`, 'string_type');
    return undefined;
  }
  if (value.trim() === '') {
    problems.add(['body', field], 'must not be empty', 'string_too_short');
    return undefined;
  }
  return value;
}

function checkOptionalString(object: Record<string, unknown>, field: string, problems: Problems): string | null {
  const value = object[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    problems.add(['body', field], `must be a string or null, not ${describe(value)}`, 'string_type');
    return null;
  }
  return value;
}

function checkCountry(object: Record<string, unknown>, problems: Problems): string | undefined {
  const value = object.country;
  const loc = ['body', 'country'];
  if (value === undefined) {
    problems.add(loc, 'field required', 'missing');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(loc, `must be a string, not ${describe(value)}`, 'string_type');
    return undefined;
  }
  if (value.length > 2) {
    problems.add(loc, `must have at most 2 characters (an ISO-3166 alpha-2 code), got ${JSON.stringify(value)}`, 'string_too_long');
    return undefined;
  }
  if (!/^[A-Za-z]{2}$/.test(value)) {
    problems.add(loc, `must be an ISO-3166 alpha-2 code (two letters), got ${JSON.stringify(value)}`, 'value_error');
    return undefined;
  }
  return value.toUpperCase();
}

/**
 * The products object of a write body: each key one of `keys`, each value null (the same as
 * leaving the key out) or {quantity: integer 0…2147483647}. Answers the quantities given.
 */
function checkProducts(value: unknown, keys: readonly ProductKey[], version: ApiVersion, problems: Problems): Partial<Record<ProductKey, number>> | undefined {
  const loc = ['body', 'products'];
  if (value === undefined) {
    problems.add(loc, 'field required', 'missing');
    return undefined;
  }
  if (!isObject(value)) {
    problems.add(loc, `must be an object with the optional keys ${keys.join(', ')}, not ${describe(value)}`, 'model_type');
    return undefined;
  }
  const quantities: Partial<Record<ProductKey, number>> = {};
  for (const [key, entry] of Object.entries(value)) {
    const here = [...loc, key];
    if (!(keys as readonly string[]).includes(key)) {
      problems.add(here, `unknown product key ${JSON.stringify(key)}: this ${version} body accepts ${keys.join(', ')}`, 'extra_forbidden');
      continue;
    }
    if (entry === null) continue;
    if (!isObject(entry)) {
      problems.add(here, `must be null or {"quantity": <integer>}, not ${describe(entry)}`, 'model_type');
      continue;
    }
    checkNoExtra(entry, ['quantity'], here, problems);
    const quantity = entry.quantity;
    if (quantity === undefined) {
      problems.add([...here, 'quantity'], 'field required', 'missing');
    } else if (typeof quantity !== 'number' || !Number.isInteger(quantity)) {
      problems.add([...here, 'quantity'], `must be an integer, got ${JSON.stringify(quantity)}`, 'int_type');
    } else if (quantity < 0) {
      problems.add([...here, 'quantity'], `must be >= 0, got ${quantity}`, 'greater_than_equal');
    } else if (quantity > MAX_QUANTITY) {
      problems.add([...here, 'quantity'], `must be <= ${MAX_QUANTITY}, got ${quantity}`, 'less_than_equal');
    } else {
      quantities[key as ProductKey] = quantity;
    }
  }
  return quantities;
}

const CREATE_FIELDS = [
  'email',
  'country',
  'products',
  'account_status',
  'privacy_policy',
  'terms_and_conditions',
  'first_name',
  'last_name',
  'city',
  'state',
  'company_name',
  'phone',
] as const;

/** create_account_v2 / create_account: the new account, or undefined with the problems added. */
export function checkCreateBody(body: unknown, version: ApiVersion, problems: Problems): NewMarketplaceAccount | undefined {
  const object = checkBodyObject(body, problems);
  if (!object) return undefined;
  checkNoExtra(object, CREATE_FIELDS, ['body'], problems);
  const email = object.email === undefined ? (problems.add(['body', 'email'], 'field required', 'missing'), undefined) : checkEmail(object.email, ['body', 'email'], problems);
  const country = checkCountry(object, problems);
  const quantities = checkProducts(object.products, CREATE_KEYS[version], version, problems);
  const accountStatus = checkStatus(object.account_status, ['body', 'account_status'], problems);
  const privacyPolicy = checkRequiredString(object, 'privacy_policy', problems);
  const termsAndConditions = checkRequiredString(object, 'terms_and_conditions', problems);
  const optional = {
    firstName: checkOptionalString(object, 'first_name', problems),
    lastName: checkOptionalString(object, 'last_name', problems),
    city: checkOptionalString(object, 'city', problems),
    state: checkOptionalString(object, 'state', problems),
    companyName: checkOptionalString(object, 'company_name', problems),
    phone: checkOptionalString(object, 'phone', problems),
  };
  if (!problems.empty) return undefined;
  return {
    email: email!,
    model: CREATE_MODEL[version],
    accountStatus: accountStatus!,
    country: country!,
    privacyPolicy: privacyPolicy!,
    termsAndConditions: termsAndConditions!,
    quantities: quantities!,
    ...optional,
  };
}

/** update_account_status(_v2). */
export function checkStatusBody(body: unknown, problems: Problems): AccountStatus | undefined {
  const object = checkBodyObject(body, problems);
  if (!object) return undefined;
  checkNoExtra(object, ['account_status'], ['body'], problems);
  return checkStatus(object.account_status, ['body', 'account_status'], problems);
}

/** update_account_products(_v2): the quantities given (null values and left-out keys are absent). */
export function checkProductsBody(body: unknown, version: ApiVersion, problems: Problems): Partial<Record<ProductKey, number>> | undefined {
  const object = checkBodyObject(body, problems);
  if (!object) return undefined;
  checkNoExtra(object, ['products'], ['body'], problems);
  return checkProducts(object.products, UPDATE_KEYS[version], version, problems);
}

/** Quantities for products outside the account's model are refused, each at its own loc. */
export function checkModelFit(quantities: Partial<Record<ProductKey, number>>, model: AccountModel, problems: Problems): void {
  const products = MODEL_PRODUCTS[model];
  for (const key of Object.keys(quantities)) {
    if (!(products as readonly string[]).includes(key)) {
      problems.add(
        ['body', 'products', key],
        `${key} is not a product of this account's model ${model} (its products: ${products.join(', ')})`,
        'model_mismatch',
      );
    }
  }
}
