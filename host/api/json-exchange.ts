// One JSON request/answer over undici, shared by the API clients (MonitoringClient,
// MarketplaceClient): the URL with its query, the key header, the JSON body, and the answer
// parsed when it says it is JSON. Each client maps transport failures and error statuses to
// its own typed errors.
import { request, type Dispatcher } from 'undici';

export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number | boolean>;

export interface JsonExchangeRequest {
  baseUrl: string;
  path: string;
  method: Dispatcher.HttpMethod;
  apiKey: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  accept?: string;
  /** A successful answer's body as bytes (images), not text. */
  binary?: boolean;
  dispatcher: Dispatcher;
  timeoutMs: number;
}

export interface JsonExchangeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON, the text when it is not JSON, undefined when empty (204, HEAD); a Buffer for binary 2xx. */
  body: unknown;
}

/** Throws undici's own error when the request cannot be made or answered. */
export async function exchangeJson(req: JsonExchangeRequest): Promise<JsonExchangeAnswer> {
  const url = new URL(req.baseUrl + req.path);
  for (const [name, value] of Object.entries(req.query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
    else url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { 'x-api-key': req.apiKey, accept: req.accept ?? 'application/json' };
  let payload: string | undefined;
  if (req.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(req.body);
  }
  const response = await request(url, {
    method: req.method,
    headers,
    body: payload,
    dispatcher: req.dispatcher,
    headersTimeout: req.timeoutMs,
    bodyTimeout: req.timeoutMs,
  });
  if (req.binary && response.statusCode < 400) {
    return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
  }
  const text = req.method === 'HEAD' ? '' : await response.body.text();
  let body: unknown = text === '' ? undefined : text;
  if (text !== '' && String(response.headers['content-type'] ?? '').includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.statusCode, headers: response.headers, body };
}
