// The transport under MarketplaceClient: undici requests with the API key, JSON in and out,
// error statuses turned into typed errors. Paths are absolute from the server's root, since
// the operations live under two prefixes (/marketplace-api/…, /backend-api/v1).
import { Agent, request, type Dispatcher } from 'undici';
import { marketplaceErrorFor, MarketplaceConnectionError } from './errors.js';

export interface MarketplaceClientOptions {
  /** The server's root URL, e.g. http://127.0.0.1:7420 (without /marketplace-api). */
  baseUrl: string;
  apiKey: string;
  /** An undici dispatcher to send through (default: one Agent per client, closed by close()). */
  dispatcher?: Dispatcher;
  /** Per-request timeout in ms (headers and body). Default 30 s. */
  timeoutMs?: number;
}

export class MarketplaceClientCore {
  readonly baseUrl: string;
  readonly #apiKey: string;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #timeoutMs: number;

  constructor(options: MarketplaceClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/marketplace-api(\/v[12])?$/, '');
    this.#apiKey = options.apiKey;
    this.#ownsDispatcher = !options.dispatcher;
    this.#dispatcher = options.dispatcher ?? new Agent({ connections: 8 });
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** One operation: the parsed JSON body, or undefined for an answer without one (204). */
  async call<T>(
    operationId: string,
    method: Dispatcher.HttpMethod,
    path: string,
    options: { body?: unknown; query?: Record<string, string | number | boolean | undefined> } = {},
  ): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { 'x-api-key': this.#apiKey, accept: 'application/json' };
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
        dispatcher: this.#dispatcher,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
    } catch (error) {
      throw new MarketplaceConnectionError(operationId, error as Error);
    }
    const text = await response.body.text();
    let parsed: unknown = text === '' ? undefined : text;
    if (text !== '' && String(response.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (response.statusCode >= 400) throw marketplaceErrorFor(operationId, response.statusCode, parsed ?? null);
    return parsed as T;
  }

  /** "/marketplace-api/v2/account/{email}" with the e-mail encoded. */
  accountPath(version: 'v1' | 'v2', email: string, rest = ''): string {
    return `/marketplace-api/${version}/account/${encodeURIComponent(email)}${rest}`;
  }

  /** Closes the client's own connections (not a dispatcher that was passed in). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}
