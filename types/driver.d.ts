// Editor support for driverbox drivers: the globals a driver script sees (`D`, `console`)
// and the types behind them, for plain .js drivers checked with `checkJs`.
// This file is a global script (no import/export), so it declares globals when a jsconfig
// lists it in `types` (["driverbox/types/driver"]) or a driver says
// `/// <reference types="driverbox/types/driver" />`.
//
// It must describe what runtime/ really installs; test/types.test.ts walks the live `D` in a
// sandbox and fails on any member declared here but missing there, or the other way round.
// `any` is used only where the value's type is decided at run time by data the driver reads
// (run parameters, parsed JSON bodies, deep property paths).

/// <reference path="./lib/buffer.d.ts" />
/// <reference path="./lib/q.d.ts" />
/// <reference path="./lib/lodash.d.ts" />
/// <reference path="./lib/cheerio.d.ts" />

declare namespace Driverbox {
  // ---- outcome -------------------------------------------------------------------------

  /**
   * A callback argument of D (`C`, inferred from it): a function of the shape `F`, or a value typed only as
   * `Function` (a helper's `@param {function} callback`, passed on), which says nothing of its shape. A
   * function of another known shape is refused, and an inline `function (error, response, body)` gets the
   * parameter types of `F`, so their mistakes are still found.
   */
  type Callback<C, F> = C & (Function extends C ? unknown : F);

  /** Why a run failed: one of the names in `D.errorType`. */
  type ErrorType =
    | 'MISSING_DEVICE_ERROR'
    | 'RESOURCE_UNAVAILABLE'
    | 'AUTHENTICATION_ERROR'
    | 'PARSING_ERROR'
    | 'TIMEOUT_ERROR'
    | 'IMPORT_NOT_ALLOWED'
    | 'REQUIRE_NOT_ALLOWED'
    | 'GENERIC_ERROR'
    | 'TOO_MANY_VARIABLES_ERROR'
    | 'NETWORK_ERROR';

  /** How a variable's or column's value is read: one of the names in `D.valueType`. */
  type ValueType = 'STRING' | 'NUMBER' | 'DATETIME' | 'RATE' | 'MONOTONE_RATE' | 'BOOLEAN';

  /** `D.errorType`: each value equals its name, so `'PARSING_ERROR'` works as well. */
  interface ErrorTypes {
    /** The device is not there (or not the expected one). */
    readonly MISSING_DEVICE_ERROR: 'MISSING_DEVICE_ERROR';
    /** The device did not answer, or answered with an error. */
    readonly RESOURCE_UNAVAILABLE: 'RESOURCE_UNAVAILABLE';
    /** The credentials were refused. */
    readonly AUTHENTICATION_ERROR: 'AUTHENTICATION_ERROR';
    /** The device's answer could not be read. */
    readonly PARSING_ERROR: 'PARSING_ERROR';
    /** Something took too long (also what a run past its deadline reports). */
    readonly TIMEOUT_ERROR: 'TIMEOUT_ERROR';
    /** The driver used `import` (reported by driverbox). */
    readonly IMPORT_NOT_ALLOWED: 'IMPORT_NOT_ALLOWED';
    /** The driver called `require()` (reported by driverbox). */
    readonly REQUIRE_NOT_ALLOWED: 'REQUIRE_NOT_ALLOWED';
    /** Any other failure; also what an uncaught error reports. */
    readonly GENERIC_ERROR: 'GENERIC_ERROR';
    /** More variables than the run allows (reported by driverbox). */
    readonly TOO_MANY_VARIABLES_ERROR: 'TOO_MANY_VARIABLES_ERROR';
    /** The network failed. */
    readonly NETWORK_ERROR: 'NETWORK_ERROR';
  }

  /** `D.valueType`: each value equals its name. */
  interface ValueTypes {
    /** Text (the default). */
    readonly STRING: 'STRING';
    /** A number. */
    readonly NUMBER: 'NUMBER';
    /** A date and time. */
    readonly DATETIME: 'DATETIME';
    /** A rate. */
    readonly RATE: 'RATE';
    /** A counter that only grows; reported as its rate. */
    readonly MONOTONE_RATE: 'MONOTONE_RATE';
    /** true / false. */
    readonly BOOLEAN: 'BOOLEAN';
  }

  // ---- variables and tables ------------------------------------------------------------

  /** What a variable or a table cell may hold: it is stored as text (`null` / `undefined` stay `null`). */
  type Value = string | number | boolean | bigint | null | undefined;

  /** A variable made by `D.createVariable`; its fields may be changed before `D.success`, which checks them again. */
  interface Variable {
    /** 1–50 characters; no `/`-separated segment may be `table`, `column` or `history`. */
    uid: string;
    /** At most 100 characters (longer is cut, with a warning). */
    label: string;
    /** The value as text, at most 500 characters (longer is cut, with a warning). */
    value: string | null;
    /** At most 10 characters (longer is cut, with a warning). */
    unit: string | null;
    /** One of `D.valueType`. */
    valueType: ValueType;
  }

  /** A column of `D.createTable`. */
  interface ColumnHeader {
    /** 1–30 characters, not `Id` (the record id column). */
    label: string;
    /** At most 10 characters. */
    unit?: string | null;
    /** One of `D.valueType`. @defaultValue `'STRING'` */
    valueType?: ValueType | null;
  }

  /** A column as the table keeps it. */
  interface TableColumn {
    /** The column's label. */
    label: string;
    /** Its unit, or `null`. */
    unit: string | null;
    /** Its value type (`STRING` when none was given). */
    valueType: ValueType;
  }

  /** A table as it is reported: every row starts with its record id. */
  interface TableResult {
    /** The table's label. */
    label: string;
    /** Its columns. */
    columnHeaders: TableColumn[];
    /** One array per record: the id, then one value per column. */
    rows: Array<Array<string | null>>;
    /**
     * Only when a row made by `addMetrics` has cell metadata: one entry per row (`null` for a row without any),
     * each one per column, the record id not counted (`null` for a cell without).
     */
    cellMetadata?: Array<Array<Record<string, string> | null> | null>;
  }

  /** A cell of `table.addMetrics`: its value, and optional metadata (a link: `{ url }`). */
  interface MetricCell {
    value: Value;
    /** Text values, by `D.createMetric`'s rules: at most 20 keys of at most 50 characters, each value at most 2,000 characters. */
    metadata?: Record<string, string | number | boolean | null> | null;
  }

  /** A table made by `D.createTable`. Every violation throws in the driver. */
  interface Table {
    /** Always true: marks a table for `D.success`. */
    readonly isTable: true;
    /** Always `'table'`. */
    readonly type: 'table';
    /** The table's label. */
    readonly label: string;
    /** The columns, as given (unit `null` and value type `STRING` when left out). */
    readonly columnHeaders: TableColumn[];
    /**
     * Adds a record. Throws when `id` is not 1–50 characters or already in the table, when there is not exactly
     * one value per column, or when the table is full (`maxTableRows`, default 1000).
     */
    insertRecord(id: string, values: Value[]): void;
    /** Like `insertRecord`, but a record with the same id is replaced in place (with a warning). */
    upsertRecord(id: string, values: Value[]): void;
    /**
     * Adds a record from cells `{ value, metadata? }` (newer collector sandboxes): `insertRecord`'s rules for the id,
     * the cell count and the bound; each cell must be an object, its metadata follows `D.createMetric`'s rules, and a
     * table holds at most 262,144 characters of metadata. A `url` metadata makes the cell a link in the console.
     */
    addMetrics(id: string, cells: MetricCell[]): void;
    /** The table as `D.success` reports it. */
    getResult(): TableResult;
  }

  // ---- HTTP ----------------------------------------------------------------------------

  /**
   * Text encodings the bridge, `D.crypto` and Buffer understand (any other fails at run time). Typed as any string
   * too, so an encoding kept in a variable (where it widens to `string`) is accepted; the names are for completion.
   */
  type Encoding =
    | 'utf8'
    | 'utf-8'
    | 'ascii'
    | 'latin1'
    | 'binary'
    | 'base64'
    | 'base64url'
    | 'hex'
    | 'utf16le'
    | 'utf-16le'
    | 'ucs2'
    | 'ucs-2'
    | (string & {});

  /** A scalar for query strings and forms. */
  type FormValue = string | number | boolean | null | undefined;

  /** Options of `D.device.http.get / post / put / delete`. A bare string is the same as `{ url }`. */
  interface HttpOptions {
    /**
     * A path with an optional query, starting with a single `/`. Absolute urls, `//host`, control characters and
     * backslashes are refused with `INVALID_URL` (nothing is sent). `${username}` / `${password}` are replaced by the
     * credentials, URL-encoded.
     * @defaultValue `'/'`
     */
    url?: string;
    /**
     * `'http'` or `'https'`; anything else fails with `INVALID_OPTIONS`. (Typed as any string so options kept in a
     * variable, where `'https'` widens to `string`, are accepted.)
     * @defaultValue `'http'`
     */
    protocol?: 'http' | 'https' | (string & {});
    /**
     * The device's port (the host's port map may dial another).
     * @defaultValue 80, or 443 for https
     */
    port?: number;
    /**
     * Send to the device's host name; `false` (or no known host name) uses its IP.
     * @defaultValue `true`
     */
    useHostname?: boolean;
    /**
     * Request headers, sent with lower-case names. `Host`, `Content-Length`, `Transfer-Encoding` and `Connection`
     * are the bridge's and ignored; CR/LF in a value fails with `INVALID_HEADER`.
     */
    headers?: { [name: string]: string | number | boolean | ReadonlyArray<string | number> | null | undefined };
    /** Request body: text, or an object sent as JSON. */
    body?: string | { [key: string]: unknown } | unknown[];
    /**
     * An object: sent as JSON. Any truthy value: asks for `application/json` and parses a JSON response body
     * (a body that is not JSON stays text).
     */
    json?: boolean | { [key: string]: unknown } | unknown[];
    /** Sent as `application/x-www-form-urlencoded`: an object (arrays repeat the key) or a ready string. */
    form?: string | { [key: string]: FormValue | readonly FormValue[] };
    /** Query parameters added to `url` (arrays repeat the key). */
    qs?: { [key: string]: FormValue | readonly FormValue[] };
    /** `'basic'` sends HTTP Basic auth with the device's credentials (or `username` / `password`); any other text is ignored. */
    auth?: 'basic' | (string & {});
    /** @defaultValue the device's username (for `auth: 'basic'` and `${username}`) */
    username?: string;
    /** @defaultValue the device's password (for `auth: 'basic'` and `${password}`) */
    password?: string;
    /**
     * Keep cookies in the device's jar and send them on later `jar: true` requests (this run and later runs of the
     * same device). Never shared with another device.
     * @defaultValue `false`
     */
    jar?: boolean;
    /**
     * Milliseconds for this request (waiting for a connection, connecting, headers, body), never past the run's
     * deadline; then the callback gets `ETIMEDOUT`.
     * @defaultValue 30000
     */
    timeout?: number;
    /**
     * `false` accepts an HTTPS certificate that does not verify (self-signed devices).
     * @defaultValue `true`
     */
    rejectUnauthorized?: boolean;
    /**
     * Same as `rejectUnauthorized`.
     * @defaultValue `true`
     */
    strictSSL?: boolean;
    /**
     * How the response body is decoded: one of `Encoding` (anything else fails with `INVALID_OPTIONS`); `null` gives
     * a Buffer.
     * @defaultValue `'utf8'`
     */
    encoding?: Encoding | null;
    /**
     * Ask for, and decode, gzip / deflate / br bodies.
     * @defaultValue `false`
     */
    gzip?: boolean;
    /**
     * Follow 301/302/303/307/308 (GET only, unless `followAllRedirects`).
     * @defaultValue `true`
     */
    followRedirect?: boolean;
    /**
     * Follow redirects for POST / PUT / DELETE too.
     * @defaultValue `false`
     */
    followAllRedirects?: boolean;
    /**
     * More redirects than this fail with `TOO_MANY_REDIRECTS`.
     * @defaultValue 10
     */
    maxRedirects?: number;
  }

  /**
   * The body a request's options lead to: a Buffer for `encoding: null`, text when `json` is left out or false,
   * and whatever the JSON held (or text, when it was not JSON) for `json`.
   */
  type BodyOf<O> = O extends { encoding: null }
    ? Buffer
    : O extends { json: false | null | undefined }
      ? string
      : O extends { json: unknown }
        ? any
        : string;

  /**
   * Response headers, with lower-case names. `set-cookie` is always an array; other repeated headers are joined
   * with `, `.
   */
  type HttpHeaders = { [name: string]: string } & { 'set-cookie'?: string[] };

  /** The response of a request. A 4xx / 5xx status is a response, not an error. */
  interface HttpResponse<B = string> {
    /** e.g. 200. */
    statusCode: number;
    /** e.g. `'OK'`. */
    statusMessage: string;
    /** The response headers. */
    headers: HttpHeaders;
    /** The body, also the callback's third argument. */
    body: B;
  }

  /** Codes a request or `getTLSCertificate` may fail with (a TLS verify code is possible too). */
  type HttpErrorCode =
    | 'INVALID_URL'
    | 'INVALID_OPTIONS'
    | 'INVALID_HEADER'
    | 'MISSING_DEVICE_ADDRESS'
    | 'ECONNREFUSED'
    | 'ECONNRESET'
    | 'ENOTFOUND'
    | 'EAI_AGAIN'
    | 'ETIMEDOUT'
    | 'DEPTH_ZERO_SELF_SIGNED_CERT'
    | 'SELF_SIGNED_CERT_IN_CHAIN'
    | 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
    | 'CERT_HAS_EXPIRED'
    | 'ERR_TLS_CERT_ALTNAME_INVALID'
    | 'ERR_SSL_WRONG_VERSION_NUMBER'
    | 'BODY_TOO_LARGE'
    | 'TOO_MANY_REQUESTS'
    | 'REDIRECT_REFUSED'
    | 'TOO_MANY_REDIRECTS'
    | 'NETWORK_ERROR'
    | (string & {});

  /** Why a request failed; its message names the request. */
  interface HttpError extends Error {
    /** e.g. `'ECONNREFUSED'`, `'ETIMEDOUT'`, `'INVALID_URL'`. */
    code: HttpErrorCode;
  }

  /** `callback(error, response, body)`: on failure `error` is set and `response` and `body` are `null`. */
  type HttpCallback<B = string> = (error: HttpError | null, response: HttpResponse<B> | null, body: B | null) => void;

  /**
   * The type an option name that `HttpOptions` does not have is checked against, so a misspelt option (`timout`)
   * is an error instead of being ignored.
   */
  interface UnknownHttpOption {
    /** Never satisfied: the option is not one `D.device.http` knows (see `HttpOptions`). */
    readonly 'not an option of D.device.http requests': never;
  }

  /** The options as written, with every name `HttpOptions` does not have turned into `UnknownHttpOption`. */
  type KnownHttpOptions<O> = { [K in keyof O]: K extends keyof HttpOptions ? O[K] : UnknownHttpOption };

  /**
   * Sends one request (options, or a url path); the callback is called exactly once. The body's type follows
   * `encoding` and `json`.
   */
  type HttpMethod = <O extends HttpOptions, C extends HttpCallback<BodyOf<O>> | Function>(options: (O & KnownHttpOptions<O>) | string, callback: Callback<C, HttpCallback<BodyOf<O>>>) => void;

  /** Options of `getTLSCertificate`. */
  interface TlsOptions {
    /** @defaultValue 443 */
    port?: number;
    /**
     * Connect to the device's host name; `false` (or no known host name) uses its IP.
     * @defaultValue `true`
     */
    useHostname?: boolean;
  }

  /** The certificate a device presents, as `getTLSCertificate` judges it. */
  interface TlsCertificate {
    /** The issuer's organisation (O), else its CN, else its whole name. */
    issuer: string;
    /** notAfter, e.g. `'Nov 20 01:10:46 2027 GMT'`. */
    expiry: string;
    /** The chain verifies against the trusted CAs and the certificate names the host dialled. */
    valid: boolean;
    /** `null` when valid; else the TLS code, e.g. `'CERT_HAS_EXPIRED'`. */
    certError: string | null;
    /** The issuer's full name, e.g. `'CN=my CA, O=acme'`. */
    issuerDN: string;
    /** The subject's full name, e.g. `'CN=nas.local'`. */
    subject: string;
    /** e.g. `['DNS:nas.local', 'IP:10.0.0.7']`. */
    subjectAltNames: string[];
    /** notBefore, in the same form as `expiry`. */
    validFrom: string;
    /** Whole days left; negative once expired. */
    daysToExpiry: number;
    /** SHA-256 of the certificate, colon-separated upper-case hex. */
    fingerprint256: string;
    /** Upper-case hex. */
    serialNumber: string;
  }

  /** `callback(error, certificate)`: exactly one of them is set. */
  type TlsCallback = (error: HttpError | null, certificate: TlsCertificate | null) => void;

  /** `D.device.http`, and the `http` of an external device. */
  interface Http {
    /** Sends a GET; redirects are followed unless `followRedirect: false`. */
    get: HttpMethod;
    /** Sends a POST. */
    post: HttpMethod;
    /** Sends a PUT. */
    put: HttpMethod;
    /** Sends a DELETE. */
    delete: HttpMethod;
    /**
     * Reads the TLS certificate the device presents and judges it: a self-signed or expired certificate is a
     * certificate with `valid: false`, not an error.
     */
    getTLSCertificate<C extends TlsCallback | Function>(options: TlsOptions | null | undefined, callback: Callback<C, TlsCallback>): void;
  }

  // ---- Telnet and WinRM (docs/reference/driver-api/telnet.md, winrm.md) ----------------------------

  /** Options of `D.device.sendTelnetCommand`. */
  interface TelnetOptions {
    /** Sent as `command + "\r\n"`. Required when the call is made (optional here: drivers fill in a shared options object). */
    command?: string;
    /** @defaultValue 23 */
    port?: number;
    /** Idle timeout, ms: the session ends this long after the last byte either way. @defaultValue 500 */
    timeout?: number;
    /** Wait for the shell prompt before sending the command; `false` sends it right after connecting. @defaultValue true */
    negotiationMandatory?: boolean;
    /** Text (found anywhere in a received chunk) or a RegExp. @defaultValue /(?:\/ )?#\s/ */
    shellPrompt?: string | RegExp;
    /** Answered with `username + "\n"`. @defaultValue /login[: ]*$/i */
    loginPrompt?: string | RegExp;
    /** Answered with `password + "\n"`. @defaultValue /Password: /i */
    passwordPrompt?: string | RegExp;
    /** Written as is right after connecting (e.g. `"auth secret\n"`). */
    onConnectCommand?: string | null;
    /** @defaultValue the device's username */
    username?: string;
    /** @defaultValue the device's password */
    password?: string;
  }

  /** A Telnet failure: a socket error (`ECONNREFUSED`, `ECONNRESET`…), `ETIMEDOUT`, `OUTPUT_TOO_LARGE`, `INVALID_OPTIONS`, `TOO_MANY_SESSIONS`, `TIMEOUT`. */
  interface TelnetError extends Error {
    code: string;
  }

  /** `callback(transcript, error)`: the whole raw transcript, and `""` (an empty string) on success. */
  type TelnetCallback = (output: string, error: TelnetError | '') => void;

  /** Options of `D.device.sendWinRMCommand`. */
  interface WinRMOptions {
    /** A PowerShell command, run as `powershell.exe "<command, " escaped as \">"`. Required when the call is made (optional here: drivers fill in a shared options object). */
    command?: string;
    /** @defaultValue the device's username; `DOMAIN\\user` authenticates with NTLM */
    username?: string;
    /** @defaultValue the device's password (when `username` is not given) */
    password?: string;
    /** @defaultValue 5985 (5986 with `scheme: 'https'`) */
    port?: number;
    /** @defaultValue 'http' ('https' when `port` is 5986) */
    scheme?: 'http' | 'https';
    /** Accept any certificate over https. @defaultValue false */
    skipVerify?: boolean;
    /** `'auto'`: NTLM for `DOMAIN\\user` names, basic otherwise. @defaultValue 'auto' */
    auth?: 'auto' | 'basic' | 'ntlm';
    /** The whole command's time, ms. @defaultValue 30000 */
    timeout?: number;
  }

  /** What a successful WinRM command gives. */
  interface WinRMOutcome {
    commandId: string;
    shellId: string;
    /** Raw (CRLF line ends, untrimmed); `""` when empty. */
    stdout: string;
    /** `null` when the command wrote nothing there. */
    stderr: string | null;
    exitCode: number;
  }

  /**
   * A WinRM failure. `code` is the HTTP status (a number: 401, 500…) for an HTTP error, a text such as
   * `ECONNREFUSED` / `ETIMEDOUT` for others, and absent for a non-zero exit status (its message is
   * `Command <command line> failed with exit code: <N> - <stdout> <stderr>`).
   */
  interface WinRMError extends Error {
    code?: number | string;
  }

  /** The ONE argument of a WinRM callback: `error` is exactly `null` on success. */
  type WinRMResult = { outcome: WinRMOutcome; error: null } | { outcome: null; error: WinRMError };

  type WinRMCallback = (result: WinRMResult) => void;

  interface Device {
    /** Runs one command over Telnet: see docs/reference/driver-api/telnet.md. */
    sendTelnetCommand<C extends TelnetCallback | Function>(options: TelnetOptions, callback: Callback<C, TelnetCallback>): void;
    /** Runs one PowerShell command over WinRM: see docs/reference/driver-api/winrm.md. */
    sendWinRMCommand<C extends WinRMCallback | Function>(options: WinRMOptions, callback: Callback<C, WinRMCallback>): void;
  }

  interface ExternalDevice {
    sendTelnetCommand<C extends TelnetCallback | Function>(options: TelnetOptions, callback: Callback<C, TelnetCallback>): void;
    sendWinRMCommand<C extends WinRMCallback | Function>(options: WinRMOptions, callback: Callback<C, WinRMCallback>): void;
  }

  // ---- devices -------------------------------------------------------------------------

  /** `D.device`: the device the run is for. Each getter returns `null` when unknown. */
  interface Device {
    /** The device's IP address. */
    ip(): string | null;
    /** The device's host name. */
    hostname(): string | null;
    /** The management username. */
    username(): string | null;
    /** The management password. */
    password(): string | null;
    /** The device's serial number. */
    serial(): string | null;
    /** The device's MAC address. */
    macAddress(): string | null;
    /** Same as `D.createVariable`. */
    createVariable: CreateVariable;
    /** Requests to the device. */
    http: Http;
  }

  /** Credentials of `D.createExternalDevice`. */
  interface ExternalCredentials {
    /** Username for `auth: 'basic'` and `${username}`. */
    username?: string;
    /** Password for `auth: 'basic'` and `${password}`. */
    password?: string;
  }

  /** A host other than the device, made by `D.createExternalDevice`. */
  interface ExternalDevice {
    /** The host as given. */
    ip(): string;
    /** The host as given. */
    hostname(): string;
    /** The username given, or `null`. */
    username(): string | null;
    /** The password given, or `null`. */
    password(): string | null;
    /** Requests to this host, with the same options as `D.device.http`. */
    http: Http;
  }

  // ---- SSH (docs/reference/driver-api/ssh.md) ---------------------------------------------------------

  /** Algorithm lists for old gear (ssh2's names); each replaces ssh2's default list of its kind. */
  interface SshAlgorithms {
    kex?: string[];
    cipher?: string[];
    serverHostKey?: string[];
    hmac?: string[];
    compress?: string[];
  }

  /** What both SSH calls connect with. */
  interface SshConnectOptions {
    /** Login name; empty: the device's management username. */
    username?: string;
    /** Alias of `username`. */
    user?: string;
    /** Password; empty: the device's management password. */
    password?: string;
    /** Device port (default 22; the port map applies). A number or its decimal text. */
    port?: number | string;
    algorithms?: SshAlgorithms;
  }

  /** Options of `sendSSHCommand`. */
  interface SshCommandOptions extends SshConnectOptions {
    /** The command line to run. */
    command: string;
    /** ms for the whole call, connection included (default 2000). A number or its decimal text. */
    timeout?: number | string;
    /** Alias of `timeout`. */
    ttl?: number | string;
  }

  /**
   * The error of `sendSSHCommand`. `code`: 5 wrong credentials ("Permission denied"), 255 no
   * connection (the original message), the exit status of a command that failed (`message` its
   * trimmed stderr, `output` its trimmed stdout), `undefined` for "Timeout of <N>ms expired", or
   * driverbox's own code as text (INVALID_OPTIONS, TOO_MANY_SESSIONS, OUTPUT_TOO_LARGE…).
   */
  interface SshError extends Error {
    code?: number | string | null;
    output?: string;
    signal?: string;
  }

  type SshCommandCallback = (output: string | null, error: SshError | null) => void;

  /** Options of `sendSSHCommands`. */
  interface SshShellOptions extends SshConnectOptions {
    /** Sent in turn, each followed by "\n". */
    commands: string[];
    /** Text that ends a command's output (default "#"). */
    prompt?: string;
    /** A pattern (text or RegExp) that also ends it. */
    prompt_regex?: string | RegExp;
    /** Text that ends the sequence with an error. */
    error_prompt?: string;
    /** ms to wait before each command (default 1000). */
    inter_command_timeout_ms?: number | string;
    /** ms for the whole sequence, connection included (default 30000). */
    global_timeout_ms?: number | string;
  }

  /**
   * The error of `sendSSHCommands`: a plain object, no code ("timeout", "socket closed",
   * "disconnected", ssh2's message), or the output so far and the command for `error_prompt`.
   */
  interface SshShellError {
    message: string;
    command?: string;
    /** Only driverbox's own refusals, as text (INVALID_OPTIONS, TOO_MANY_SESSIONS…). */
    code?: string;
  }

  /** `outputs`: one raw text per command (echo, output, prompt); `[]` on error. */
  type SshShellCallback = (outputs: string[], error: SshShellError | null) => void;

  /** The SSH members of a device (D.device and external devices alike). */
  interface SshMembers {
    /** Runs one command over a new SSH connection (exec channel). */
    sendSSHCommand<C extends SshCommandCallback | Function>(options: SshCommandOptions, callback: Callback<C, SshCommandCallback>): void;
    /** Runs commands in turn in an interactive shell (vt100 pty) over a new SSH connection. */
    sendSSHCommands<C extends SshShellCallback | Function>(options: SshShellOptions, callback: Callback<C, SshShellCallback>): void;
  }
  interface Device extends SshMembers {}
  interface ExternalDevice extends SshMembers {}
  // ---- SNMP: D.device.createSNMPSession (docs/reference/driver-api/snmp.md) ------------------------

  /** Options of `D.device.createSNMPSession`; the community or v3 user comes from the device's SNMP settings. */
  interface SnmpSessionOptions {
    /**
     * The device's UDP port (the host's port map may dial another).
     * @defaultValue 161
     */
    port?: number;
    /**
     * Milliseconds to wait for each answer; one retry follows, so a silent agent fails after about twice this.
     * @defaultValue 5000
     */
    timeout?: number;
    /**
     * Rows asked for per GetBulk request of a walk (v2c / v3).
     * @defaultValue 24
     */
    maxRepetitions?: number;
  }

  /**
   * One value of an SNMP output: OctetString as text; Integer, Counter32, Gauge32, TimeTicks, IpAddress and
   * OID as strings; Counter64 and Opaque as numbers; an OID the agent does not have as `{ error }`
   * (`"NoSuchObject: <oid>"`, `"NoSuchInstance: <oid>"`).
   */
  type SnmpValue = string | number | { error: string };

  /**
   * OID (numeric, no leading dot) → value (see `SnmpValue`); a walk's keys are in walk order. Typed loosely, as
   * drivers use it: `output[oid].error` on a text value is `undefined`, `parseInt(output[oid])` reads a number.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type SnmpOutput = Record<string, any>;

  /**
   * An SNMP failure. `name` is net-snmp's: `RequestTimedOutError` ("Request timed out": no answer, a wrong
   * community), `RequestFailedError` (the agent refused: `status` is its error status, e.g. NoAccess,
   * NotWritable), `ResponseInvalidError`; or `Error` with a `code` for driverbox's own refusals
   * (`INVALID_OPTIONS`, `TOO_MANY_COMMANDS`, `TOO_MANY_SESSIONS`, `OUTPUT_TOO_LARGE`, `NO_ADDRESS`).
   */
  interface SnmpError extends Error {
    status?: number;
    code?: string;
  }

  /** `callback(output, error)` of `get`: `output` is `null` when `error` is set. */
  type SnmpGetCallback = (output: SnmpOutput | null, error: SnmpError | null) => void;
  /** `callback(output, error)` of `walk` and `set`: `output` is always an object. */
  type SnmpWalkCallback = (output: SnmpOutput, error: SnmpError | null) => void;

  /** A session made by `createSNMPSession`: each call is one request (a walk, several) to the device's agent. */
  interface SnmpSession {
    /** Gets these OIDs (one string counts as a list of one). `output` is `null` when `error` is set. */
    get<C extends SnmpGetCallback | Function>(oids: string[] | string, callback: Callback<C, SnmpGetCallback>): void;
    /** Walks the subtree under `oid`. `output` is always an object: on an error, what was walked so far. */
    walk<C extends SnmpWalkCallback | Function>(oid: string, callback: Callback<C, SnmpWalkCallback>): void;
    /** Sets `oid`: a string as an OctetString, an integer as an Integer32 (the write community, if any). `{}` on an error. */
    set<C extends SnmpWalkCallback | Function>(oid: string, value: string | number, callback: Callback<C, SnmpWalkCallback>): void;
  }

  /** `D.device` */
  interface Device {
    /** A session to the device's SNMP agent with its SNMP settings (v2c "public" when it has none). */
    createSNMPSession(options?: SnmpSessionOptions): SnmpSession;
  }

  /** An external device (`D.createExternalDevice`): v2c, community "public". */
  interface ExternalDevice {
    createSNMPSession(options?: SnmpSessionOptions): SnmpSession;
  }

  // ---- crypto --------------------------------------------------------------------------

  /** Bytes or text for `D.crypto`. */
  type BinaryLike = string | Buffer;

  /** Hash names node:crypto knows (others it knows work too). */
  type HashAlgorithm = 'md5' | 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512' | (string & {});

  /** A cipher or decipher of `D.crypto.createCipher / createDecipher`. */
  interface Cipher {
    /** Feeds data; the output so far, as text in `outputEncoding` or a Buffer. */
    update(data: BinaryLike, inputEncoding: Encoding | null | undefined, outputEncoding: Encoding): string;
    update(data: BinaryLike, inputEncoding?: Encoding | null): Buffer;
    /** The rest of the output; the cipher cannot be used afterwards. */
    final(outputEncoding: Encoding): string;
    final(): Buffer;
    /** Turns PKCS padding off (`false`) or on. */
    setAutoPadding(on?: boolean): void;
  }

  /** `D.crypto`: hashes and ciphers computed by node:crypto on the host. Bad input throws. */
  interface Crypto {
    /** Hash of `data`: text in `outputEncoding`, or a Buffer. */
    hash(data: BinaryLike, algorithm: HashAlgorithm, inputEncoding: Encoding | null | undefined, outputEncoding: Encoding): string;
    hash(data: BinaryLike, algorithm: HashAlgorithm, inputEncoding?: Encoding | null): Buffer;
    /** HMAC of `data` with `key`: text in `outputEncoding`, or a Buffer. */
    hmac(data: BinaryLike, key: BinaryLike, algorithm: HashAlgorithm, outputEncoding: Encoding): string;
    hmac(data: BinaryLike, key: BinaryLike, algorithm: HashAlgorithm): Buffer;
    /** PBKDF2 key of `keyLength` bytes. @param digest defaults to `'sha1'` */
    pbkdf2Sync(password: BinaryLike, salt: BinaryLike, iterations: number, keyLength: number, digest?: HashAlgorithm): Buffer;
    /** A cipher, e.g. `createCipher('aes-128-cbc', key, iv)` (node's createCipheriv). */
    createCipher(algorithm: string, key: BinaryLike, iv?: BinaryLike | null): Cipher;
    /** A decipher (node's createDecipheriv). */
    createDecipher(algorithm: string, key: BinaryLike, iv?: BinaryLike | null): Cipher;
  }

  // ---- the rest of D -------------------------------------------------------------------

  /** `D.createVariable(uid, label, value, unit?, valueType?)`. Throws on a bad uid or value type. */
  type CreateVariable = (
    uid: string | number,
    label: string | null | undefined,
    value: Value,
    unit?: string | null,
    valueType?: ValueType | null,
  ) => Variable;

  // ---- issue 18: D.createMetric and timers (docs/reference/driver-api/create-metric.md, timers.md) ----

  /** `D.createMetric(spec)`: the fields of `D.createVariable` as one object. */
  interface MetricSpec {
    uid: string | number;
    /** The label (`label` is taken too). */
    name?: string | null;
    label?: string | null;
    value: Value;
    unit?: string | null;
    valueType?: ValueType | null;
    /** Text values (a link: `{ url }`), at most 20 keys; kept on the variable, not in the run's result. */
    metadata?: Record<string, string | number | boolean | null> | null;
  }

  /** `D.math`. */
  interface MathHelpers {
    /** `actual` / `maximum` in percent: both truncated to integers, the result rounded to two decimals. */
    percent(actual: number | string, maximum: number | string): number;
  }

  /** `D._unsafe.buffer`: Buffer's factories; on bad input they log an error and return `undefined`. */
  interface SafeBufferFactory {
    /** Bytes of a string (in `encoding`, default utf8), of an array of bytes, or a copy of a buffer. */
    from(data: string, encoding?: Encoding): Buffer | undefined;
    from(data: ArrayLike<number> | ArrayBufferLike | Uint8Array): Buffer | undefined;
    /** A buffer of `size` bytes, zero-filled or filled with `fill`. */
    alloc(size: number, fill?: string | number | Uint8Array, encoding?: Encoding): Buffer | undefined;
    /** The buffers joined (cut to `totalLength` when given). */
    concat(list: ReadonlyArray<Uint8Array>, totalLength?: number): Buffer | undefined;
  }

  /** `D._unsafe`. */
  interface Unsafe {
    /** Buffer's factories. */
    buffer: SafeBufferFactory;
  }

  // ── Configuration backups (docs/reference/driver-api/backup.md) ──────────────────────────────────────────
  /** What `D.createBackup` takes. */
  interface BackupInput {
    /** Default "Custom Driver Configuration Backup"; at most 255 characters (longer is cut, with a warning). */
    label?: string | null;
    /** The running configuration: required, at most 1,048,576 characters. */
    running: string;
    /** The startup configuration: a string of at most 1,048,576 characters, or nothing. */
    startup?: string | null;
    /** Accepted and ignored (the platform's diff filter): driverbox stores the configuration whole. */
    ignoredLines?: string[];
  }

  /** A checked backup, for `D.success(backup)` at the end of `backup()`. */
  interface Backup {
    readonly type: 'backup';
    label: string;
    running: string;
    startup: string | null;
  }

  /** An error given to a `D.tftpServer.accept` callback. */
  interface TftpError {
    /** INVALID_OPTIONS, TFTP_BUSY, NO_ADDRESS, TOO_MANY_SESSIONS, TFTP_TIMEOUT, OUTPUT_TOO_LARGE, TFTP_ERROR, ABORTED. */
    code: string;
    message: string;
  }

  /** Options of `D.tftpServer.accept`. */
  interface TftpAcceptOptions {
    /** The file name the device must upload (leading slashes ignored); any when absent. */
    filePath?: string;
    /** ms from opening to a complete upload (default 30000), within the run's deadline. */
    timeout?: number;
    /** 69 asks for TFTP's own port (used when the host may bind it); otherwise a random port is used. */
    port?: number;
  }

  /** `onReady(error, host, port)` of `D.tftpServer.accept`. */
  type TftpReadyCallback = (error: TftpError | null, host?: string | null, port?: number | null) => void;
  /** `onUpload(error, content)` of `D.tftpServer.accept`. */
  type TftpUploadCallback = (error: TftpError | null, content?: string | null) => void;

  /** The run's TFTP receiver, for devices that upload their configuration. */
  interface TftpServer {
    /**
     * Opens the receiver: `onReady(null, host, port)` gives the address and port to tell the device (or
     * `onReady(error)`); `onUpload(null, content)` then gets the uploaded file as text (or `onUpload(error)`).
     */
    accept<R extends TftpReadyCallback | Function, U extends TftpUploadCallback | Function>(
      options: TftpAcceptOptions | null | undefined,
      onReady: Callback<R, TftpReadyCallback>,
      onUpload: Callback<U, TftpUploadCallback>,
    ): void;
  }

  /** The global `D`: everything a driver may use. */
  interface D {
    /** A configuration backup for `D.success` (in `backup()`). Throws the platform's errors on bad input. */
    createBackup(backup: BackupInput): Backup;
    /** A TFTP receiver for the run (one per run). */
    readonly tftpServer: TftpServer;
    /** The names `D.failure` takes. */
    readonly errorType: ErrorTypes;
    /** The names a variable's or column's `valueType` takes. */
    readonly valueType: ValueTypes;
    /**
     * Ends the run successfully with variables and / or one table, in either order. The first of `D.success`,
     * `D.failure` or an uncaught error decides the outcome; later calls are warnings.
     */
    success(): void;
    success(variables: Variable[] | null | undefined, table?: Table | null): void;
    success(table: Table, variables?: Variable[] | null): void;
    /** The end of `backup()`: the configuration to store (variables or a table may come along). */
    success(backup: Backup, more?: Variable[] | Table | null): void;
    success(variables: Variable[] | Table | null | undefined, backup: Backup): void;
    /** Ends the run with a failure; anything but a `D.errorType` is reported as `GENERIC_ERROR`, with a warning. */
    failure(errorType: ErrorType): void;
    /** A variable for `D.success`. Throws on a bad uid or value type; text past its limit is cut, with a warning. */
    createVariable: CreateVariable;
    /** A table for `D.success`: label 1–50 characters, at least one column. Throws on bad input. */
    createTable(label: string, columnHeaders: ColumnHeader[]): Table;
    /** The object form of `createVariable` (issue 18): a variable for `D.success`, `name` as its label, `metadata` kept on it. */
    createMetric(spec: MetricSpec): Variable & { metadata?: Record<string, string> };
    /** The run's parameter `name`, as given (any JSON value); `undefined`, with a warning, when not given. */
    getParameter(name: string): any;
    /** The device the run is for. */
    readonly device: Device;
    /** Another host to send requests to, with its own credentials; the host application may restrict hosts. */
    createExternalDevice(host: string, credentials?: ExternalCredentials | null): ExternalDevice;
    /** Parses HTML (or XML, with `{ xml: true }`) and returns cheerio's `$` for it. */
    htmlParse(content: string | Buffer | DomNode | DomNode[], options?: CheerioOptions | null, isDocument?: boolean): CheerioAPI;
    /** Hashes and ciphers. */
    readonly crypto: Crypto;
    /** Arithmetic helpers. */
    readonly math: MathHelpers;
    /** Buffer factories that log and return `undefined` instead of throwing. */
    readonly _unsafe: Unsafe;
    /** The q promise library (1.x). */
    readonly q: QStatic;
    /** lodash (4.x). */
    readonly _: Lodash;
  }

  /** `console`: every line is captured with its level (`printf`-style `%s %d %i %f %j %o %O` supported). */
  interface Console {
    /** Level `log`. */
    log(...data: unknown[]): void;
    /** Level `info`. */
    info(...data: unknown[]): void;
    /** Level `warn`. */
    warn(...data: unknown[]): void;
    /** Level `warn`. */
    warning(...data: unknown[]): void;
    /** Level `error`. */
    error(...data: unknown[]): void;
    /** Level `debug`. */
    debug(...data: unknown[]): void;
    /** Level `debug`. */
    verbose(...data: unknown[]): void;
    /** Level `debug` (no stack trace is added). */
    trace(...data: unknown[]): void;
  }

  /**
   * An entry point: `validate`, `get_status`, `backup` or `custom_1`, `custom_2`, … at the driver's top level, called with no
   * arguments; nothing it returns is used. Opt in to checking one with a `@type {Driverbox.EntryPoint}` JSDoc tag.
   */
  type EntryPoint = () => void;

  /** The entry points a driver may define (each one is optional). */
  interface EntryPoints {
    /** Checks that the device answers with the given credentials. */
    validate?: EntryPoint;
    /** Reads the device and reports variables and tables (the default action). */
    get_status?: EntryPoint;
    /** Configuration management: ends with `D.success(D.createBackup({ label, running, startup }))`. */
    backup?: EntryPoint;
    /** Custom actions, `custom_1`, `custom_2`, …, listed by their `@label` / `@documentation`. */
    [custom: `custom_${number}`]: EntryPoint | undefined;
  }
}

/** Everything a driver may use: the device, HTTP, variables, tables, outcome, and helper libraries. */
declare const D: Driverbox.D;

// Timers (issue 18): on the host's scheduler, bounded by the run's deadline and maxTimers; ids are numbers.
/** Calls `callback(...args)` once after `ms` (default 0); a string callback throws. */
declare function setTimeout<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
/** Calls `callback(...args)` every `ms` (at least 10); counts once against maxTimers. */
declare function setInterval<A extends unknown[]>(callback: (...args: A) => void, ms?: number, ...args: A): number;
/** Cancels a timer or an interval; an unknown id is ignored. */
declare function clearTimeout(id: number | undefined): void;
/** Cancels an interval or a timer; an unknown id is ignored. */
declare function clearInterval(id: number | undefined): void;

/** Driver logging, captured with its level. */
interface Console extends Driverbox.Console {}
/** Driver logging, captured with its level. */
declare var console: Console;

// `require` is deliberately not declared: a driver calling it fails with REQUIRE_NOT_ALLOWED, and
// TypeScript already reports `require('x')` in a .js file as a module it cannot find; a declaration
// here would clash with @types/node's in a project that loads both.
