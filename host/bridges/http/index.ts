// Where a driver's D.device.http.get/post/put/delete goes: options checked, the URL
// built on the device, then one undici exchange per hop (redirects followed on the
// device only, cookies from and to the device's jar), recorded in the run's transcript,
// and answered in the shape of the driver's callback (error, response, body).
import { STATUS_CODES } from 'node:http';
import type { ByteBudget } from '../core/buffer-budget.js';
import type { HttpAnswer } from '../../../runtime/protocol.js';
import type { HttpExchange } from '../../contract/run-result.js';
import { answerBound, deliveredBytes, type AnswerBound } from './answer-budget.js';
import { readOptions, type Method, type RequestOptions } from './options.js';
import { describe, isPlainObject, jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '../../untrusted-input/plain-values.js';
import type { HopResponse, HopWire } from './send.js';
import { failure, RequestRefused, SendFailure } from './errors.js';
import type { HttpSession } from './sessions.js';
import { type RunTarget } from '../core/target.js';
import { buildUrl, redirectTarget } from './url.js';
import { tlsPortMessage } from './wrong-protocol.js';
import { round, startExchange, type RedactorCache } from '../core/transcript.js';
import { type TranscriptMode } from '../../contract/run-request.js';
import { headerSecrets, learnable, maskBodyFields, maskUrlQuery } from '../../secrets/secret-names.js';

export interface RequestContext {
  target: RunTarget;
  session: HttpSession;
  /** The device itself, or a recording (record / replay). */
  /** Where hops go: the device, a recorder or a replay (record/wire.ts's NetworkWire). */
  wire: HopWire;
  /** Aborted when the run ends: requests in flight are dropped. */
  signal: AbortSignal;
  maxResponseBytes: number;
  /** The run's memoryMb: its answers may take a share of it on the host (answer-budget.ts). */
  memoryMb?: number;
  /** The host's bound on answer bytes held at once by all its runs. */
  buffers?: ByteBudget;
  /** Milliseconds left before the run's deadline: no request may outlive it. */
  timeLeftMs: () => number;
  /** Counts one exchange against the run's bound; false when the bound is reached. */
  takeRequest: () => boolean;
  maxRequests: number;
  /** Passwords known to the run (the device's, external devices'), and its parameters' secrets: masked in the transcript. */
  secrets: Array<string | null>;
  redactors: RedactorCache;
  /** Values the run sent or got under a secret's name (a token header, api_key=…): masked in the run's result too. */
  learn: (values: string[]) => void;
  transcript: TranscriptMode;
  runStarted: number;
  /** Another host a redirect leads to: its target and session when the run allows it, else null. */
  elsewhere: (hostname: string) => { target: RunTarget; session: HttpSession } | null;
  record: (exchange: HttpExchange) => void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The 400 pages of web servers (nginx, Apache) that got plain HTTP on their HTTPS port. */
const PLAIN_TO_TLS_PAGE = /plain HTTP request was sent to HTTPS port|speaking plain HTTP to an SSL-enabled server port/i;

function basicAuthorization(target: RunTarget, options: RequestOptions): string {
  // options.username / options.password override the device's management credentials.
  const username = options.username ?? target.username ?? '';
  const password = options.password ?? target.password ?? '';
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** Request and answer bodies are looked at for secret-named fields up to this size (as the transcript shows them). */
const SCANNED_BODY_BYTES = 64 * 1024;

/** The text of a body worth looking at for secret fields: JSON, XML or form text, its start only. */
function scannedText(body: Buffer | undefined, answer: boolean): string | null {
  if (!body || body.length === 0) return null;
  const text = body.subarray(0, SCANNED_BODY_BYTES).toString('utf8');
  // An answer is only read when it looks like JSON or XML: a page or a file is not worth the scan.
  return answer && !/^\s*[[{<]/.test(text) ? null : text;
}

/** What one hop tells of the run's secrets: values under a secret's name in its headers, query and body. */
function learnFrom(ctx: RequestContext, url: URL, headers: Record<string, string | string[] | undefined>, body: Buffer | undefined, answer: boolean): void {
  const found = headerSecrets(headers);
  if (!answer) maskUrlQuery(url.href, found);
  const text = scannedText(body, answer);
  if (text !== null) maskBodyFields(text, found);
  const values = learnable(found);
  if (values.length) ctx.learn(values);
}

function answerOf(hop: HopResponse, options: RequestOptions, bound: AnswerBound, where: string): HttpAnswer {
  const response = { statusCode: hop.status, statusMessage: STATUS_CODES[hop.status] ?? '', headers: hop.headers };
  // The wire checked this as the body came; a replayed answer comes from a file, checked here.
  if (hop.body.length > bound.bytes) {
    return failure('BODY_TOO_LARGE', `${where}: the response body is larger than the limit of ${bound.bytes} bytes (${bound.limit})`);
  }
  // Hex and base64 are known to fit before they are made; text is measured once decoded.
  const text = options.encoding.kind === 'text' && !/^(hex|base64|base64url)$/.test(options.encoding.encoding) ? hop.body.toString(options.encoding.encoding) : null;
  const delivered = deliveredBytes(hop.body, options.encoding, text, bound.bytes);
  if (delivered > bound.bytes) {
    const as = options.encoding.kind === 'buffer' ? 'a Buffer (base64 on its way)' : options.encoding.encoding;
    return failure(
      'BODY_TOO_LARGE',
      `${where}: the ${hop.body.length}-byte body, as ${as} for the driver, takes ${delivered} bytes, more than the limit of ${bound.bytes} bytes (${bound.limit}); ask for less, or raise the limit`,
    );
  }
  if (options.encoding.kind === 'buffer') {
    return { error: null, response: { ...response, body: hop.body.toString('base64') }, bodyKind: 'base64' };
  }
  const body = text ?? hop.body.toString(options.encoding.encoding);
  if (options.parseJson && body.trim() !== '') {
    // Parsed in the sandbox, where the run's memoryMb counts (runtime/device.ts), not here: the
    // host would hold the parsed value (an object per few bytes) and write it out again. Text
    // nested past the bound is refused here, in one pass, without parsing.
    if (jsonTextNestsDeeperThan(body, MAX_JSON_DEPTH)) {
      return failure('JSON_TOO_DEEP', `the device's JSON answer nests deeper than ${MAX_JSON_DEPTH} levels; ask for it without json: true to get the text`);
    }
    return { error: null, response: { ...response, body }, bodyKind: 'json' };
  }
  return { error: null, response: { ...response, body } };
}

/** Where credentials may go: the scheme, host and port they were first sent to. */
function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.host === b.host;
}

export async function performRequest(ctx: RequestContext, method: Method, raw: unknown): Promise<HttpAnswer> {
  let options: RequestOptions;
  let url: URL;
  try {
    if (!isPlainObject(raw)) throw new RequestRefused('INVALID_OPTIONS', `options must be an object such as { url: '/status' } (got ${describe(raw)})`);
    options = readOptions(method, raw);
    url = buildUrl(ctx.target, raw);
  } catch (error) {
    if (!(error instanceof RequestRefused)) throw error;
    const redactor = ctx.redactors.get(isPlainObject(raw) && typeof raw.password === 'string' ? raw.password : null, null);
    const shown = isPlainObject(raw) && typeof raw.url === 'string' ? raw.url : '(no url)';
    const exchange = startExchange(method, redactor.url(shown.length > 2048 ? `${shown.slice(0, 2048)}…` : shown), ctx.runStarted);
    exchange.error = error.code;
    exchange.errorMessage = redactor.text(error.message);
    ctx.record(exchange);
    return failure(error.code, error.message);
  }
  const authorization = options.basicAuth ? basicAuthorization(ctx.target, options) : null;
  if (options.password) ctx.learn([options.password]);
  // The credentials' base64 form is a secret too: devices echo it back in debug pages.
  const redactor = ctx.redactors.get(options.password ?? null, authorization?.slice('Basic '.length) ?? null);
  // A ${password} placeholder is masked in the transcript however short the password is.
  const firstShown = typeof raw.url === 'string' && raw.url.includes('${password}') ? buildUrl({ ...ctx.target, password: '***' }, raw).href : url.href;
  const headers = { ...options.headers };
  if (authorization) headers.authorization = authorization;
  const origin = url;
  let driverCookie: string | undefined = headers.cookie;
  // The hop's connections: the target's, or another host's after a redirect there. Cookies
  // always come from the target's jar, which sends each host only what its domain rules allow.
  let hopSession = ctx.session;
  let hopTarget = ctx.target;
  let hopMethod = options.method;
  let body = options.body;
  const bound = answerBound(ctx.maxResponseBytes, ctx.memoryMb, ctx.signal);

  for (let redirects = 0; ; redirects++) {
    const exchange = startExchange(hopMethod, redactor.url(redirects === 0 ? firstShown : url.href), ctx.runStarted);
    // Recorded as it starts, so the transcript is in the order sent and keeps a request the run's end cut short.
    ctx.record(exchange);
    if (!ctx.takeRequest()) {
      const refused = failure('TOO_MANY_REQUESTS', `this run already made ${ctx.maxRequests} requests, its limit`);
      exchange.error = refused.error!.code;
      exchange.errorMessage = refused.error!.message;
      return refused;
    }
    if (options.jar) {
      // Built anew for every hop: the jar decides what this url gets (path, expiry). The driver's
      // own Cookie header comes first, then the jar's, as request did.
      const fromJar = ctx.session.jar.getCookieStringSync(url.href);
      const merged = [driverCookie, fromJar].filter(Boolean).join('; ');
      if (merged) headers.cookie = merged;
      else delete headers.cookie;
    }
    exchange.requestBytes = body?.length ?? 0;
    learnFrom(ctx, url, headers, body, false);
    if (ctx.transcript === 'full') exchange.request = { headers: redactor.headers(headers) as Record<string, string>, body: redactor.body(body) };
    const started = performance.now();
    let hop: HopResponse;
    const requestOver = hopSession.begin?.();
    try {
      hop = await ctx.wire.send({
        url,
        method: hopMethod,
        headers,
        body,
        dispatcher: hopSession.dispatcher(options.rejectUnauthorized),
        address: hopTarget.pinnedIp ?? hopTarget.ip,
        timeoutMs: Math.max(1, Math.min(options.timeoutMs, Math.ceil(ctx.timeLeftMs()))),
        signal: ctx.signal,
        maxResponseBytes: bound.bytes,
        limitName: bound.limit,
        runBuffers: bound.inFlight,
        buffers: ctx.buffers,
        decompress: options.gzip,
      }, ctx.secrets);
    } catch (error) {
      const sendFailure = error instanceof SendFailure ? error : new SendFailure('NETWORK_ERROR', String(error));
      exchange.error = sendFailure.code;
      exchange.errorMessage = redactor.text(sendFailure.message);
      exchange.headersMs = sendFailure.headersMs === null ? null : round(sendFailure.headersMs);
      exchange.durationMs = round(performance.now() - started);
      return failure(sendFailure.code, sendFailure.message);
    } finally {
      requestOver?.();
    }
    exchange.status = hop.status;
    exchange.headersMs = round(hop.headersMs);
    exchange.durationMs = round(performance.now() - started);
    exchange.responseBytes = hop.wireBytes;
    if (hop.status === 400 && url.protocol === 'http:' && PLAIN_TO_TLS_PAGE.test(hop.body.subarray(0, 4096).toString('latin1'))) {
      exchange.hint = tlsPortMessage(`${hopMethod} ${url.origin}`, url, true);
    }
    learnFrom(ctx, url, hop.headers, hop.body, true);
    if (ctx.transcript === 'full') exchange.response = { headers: redactor.headers(hop.headers), body: redactor.body(hop.body) };
    if (options.jar) {
      for (const line of (hop.headers['set-cookie'] as string[] | undefined) ?? []) {
        try {
          ctx.session.jar.setCookieSync(line, url.href, { ignoreError: true });
        } catch {
          // a cookie the jar cannot take is dropped, as a browser would
        }
      }
    }
    const location = hop.headers.location;
    if (!options.followRedirects || !REDIRECTS.has(hop.status) || typeof location !== 'string') {
      return answerOf(hop, options, bound, `${hopMethod} ${url.origin}`);
    }
    if (redirects >= options.maxRedirects) {
      return failure('TOO_MANY_REDIRECTS', `${method} ${redactor.url(url.href)}: more than maxRedirects (${options.maxRedirects}) redirects; a redirect loop?`);
    }
    try {
      const next = redirectTarget(ctx.target, url, location, ctx.elsewhere);
      url = next.url;
      hopTarget = next.away?.target ?? ctx.target;
      hopSession = next.away?.session ?? ctx.session;
    } catch (error) {
      if (!(error instanceof RequestRefused)) throw error;
      exchange.error = error.code;
      exchange.errorMessage = error.message;
      return failure(error.code, error.message);
    }
    exchange.redirectedTo = redactor.url(url.href);
    // Credentials go to the origin they were meant for: a redirect to another scheme (https → http
    // above all) or port drops them for this hop and the rest, as browsers and curl do.
    if (!sameOrigin(origin, url)) {
      delete headers.authorization;
      delete headers['proxy-authorization'];
    }
    // Nor does a Cookie header of the driver's own go to another host: the jar's cookies go by their domain.
    if (hopTarget !== ctx.target && driverCookie !== undefined) {
      driverCookie = undefined;
      delete headers.cookie;
    }
    // 301/302/303 turn a POST (or PUT, DELETE) into a GET without a body; 307/308 keep both.
    if (hop.status !== 307 && hop.status !== 308 && hopMethod !== 'GET') {
      hopMethod = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
  }
}
