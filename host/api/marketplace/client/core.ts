// The transport under MarketplaceClient: undici requests with the API key, JSON in and out,
// error statuses turned into typed errors. Paths are absolute from the server's root, since
// the operations live under two prefixes (/marketplace-api/…, /backend-api/v1).
import { Agent, type Dispatcher } from 'undici';
import { exchangeJson, type JsonExchangeAnswer } from '../../json-exchange.js';
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
    let answer: JsonExchangeAnswer;
    try {
      answer = await exchangeJson({ baseUrl: this.baseUrl, path, method, apiKey: this.#apiKey, query: options.query, body: options.body, dispatcher: this.#dispatcher, timeoutMs: this.#timeoutMs });
    } catch (error) {
      throw new MarketplaceConnectionError(operationId, error as Error);
    }
    if (answer.status >= 400) throw marketplaceErrorFor(operationId, answer.status, answer.body ?? null);
    return answer.body as T;
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
