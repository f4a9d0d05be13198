// The transport under MonitoringClient: undici requests with the API key, paths filled from
// parameters, JSON in and out, error statuses turned into typed errors. The operation
// methods (one module per group beside this one) are thin calls of call() / count().
import { Agent, type Dispatcher } from 'undici';
import { exchangeJson, type JsonExchangeAnswer } from '../../json-exchange.js';
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
  /** Answer the body's bytes (an image), not text. */
  binary?: boolean;
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

  /** An operation answering bytes (an image): the bytes and their content type. */
  async binary(operationId: string, path: string, accept: string): Promise<{ contentType: string; data: Buffer }> {
    const { headers, body } = await this.send(operationId, 'GET', path, { accept, binary: true });
    return { contentType: String(headers['content-type'] ?? ''), data: body as Buffer };
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
    let answer: JsonExchangeAnswer;
    try {
      answer = await exchangeJson({
        baseUrl: this.baseUrl,
        path,
        method,
        apiKey: this.apiKey,
        query: options.query,
        body: options.body,
        accept: options.accept,
        binary: options.binary,
        dispatcher: this.dispatcher,
        timeoutMs: this.timeoutMs,
      });
    } catch (error) {
      throw new MonitoringConnectionError(operationId, error as Error);
    }
    if (answer.status >= 400) throw errorFor(operationId, answer.status, (answer.body ?? null) as ApiErrorBody | string | null);
    return { headers: answer.headers, body: answer.body };
  }

  /** Closes the client's own connections (not a dispatcher that was passed in). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}
