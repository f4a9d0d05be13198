// The transport under MonitoringClient: undici requests with the API key, paths filled from
// parameters, JSON in and out, error statuses turned into typed errors. The operation
// methods (one module per group beside this one) are thin calls of call() / count().
import { Agent, request, type Dispatcher } from 'undici';
import { errorFor, MonitoringConnectionError, type ApiErrorBody } from './errors.js';

export interface MonitoringClientOptions {
  /**
   * The API base URL: the portal's "API Key Endpoint" (e.g. https://api-eu-west-1-cell-1.domotz.com)
   * or a local server's URL; /public-api/v1 is added when missing.
   */
  baseUrl: string;
  apiKey: string;
  /** An undici dispatcher to send through (default: one Agent per client, closed by close()). */
  dispatcher?: Dispatcher;
  /** Per-request timeout in ms (headers and body). Default 30 s. */
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | readonly (string | number)[] | null | undefined>;

export interface CallOptions {
  query?: Query;
  body?: unknown;
  /** Accept header; JSON unless an operation answers text. */
  accept?: string;
}

export class ClientCore {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;

  constructor(options: MonitoringClientOptions) {
    const base = options.baseUrl.replace(/\/+$/, '');
    this.baseUrl = base.endsWith('/public-api/v1') ? base : `${base}/public-api/v1`;
    this.apiKey = options.apiKey;
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? new Agent({ connections: 8 });
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Fills {name} placeholders of a path, encoding each value. */
  fillPath(template: string, params: Record<string, string | number>): string {
    return template.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
  }

  /** One operation: answers the parsed JSON body (or text, or undefined for 201/204 without body). */
  async call<T>(operationId: string, method: Dispatcher.HttpMethod, path: string, options: CallOptions = {}): Promise<T> {
    const { body } = await this.send(operationId, method, path, options);
    return body as T;
  }

  /** A count operation: HEAD with the list's filters, the count from X-Entities-Count. */
  async count(operationId: string, path: string, query?: Query): Promise<number> {
    const { headers } = await this.send(operationId, 'HEAD', path, { query });
    const value = Number(headers['x-entities-count']);
    if (!Number.isInteger(value)) throw errorFor(operationId, 502, `the X-Entities-Count header is missing or not an integer`);
    return value;
  }

  private async send(
    operationId: string,
    method: Dispatcher.HttpMethod,
    path: string,
    options: CallOptions,
  ): Promise<{ headers: Record<string, string | string[] | undefined>; body: unknown }> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, String(item));
      else url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { 'x-api-key': this.apiKey, accept: options.accept ?? 'application/json' };
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method,
        headers,
        body: payload,
        dispatcher: this.dispatcher,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
    } catch (error) {
      throw new MonitoringConnectionError(operationId, error as Error);
    }
    const text = method === 'HEAD' ? '' : await response.body.text();
    const type = String(response.headers['content-type'] ?? '');
    let parsed: unknown = text === '' ? undefined : text;
    if (text !== '' && type.includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (response.statusCode >= 400) throw errorFor(operationId, response.statusCode, (parsed ?? null) as ApiErrorBody | string | null);
    return { headers: response.headers, body: parsed };
  }

  /** Closes the client's own connections (not a dispatcher that was passed in). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
