// What a failed run's message adds when the driver reached for something driverbox (like the
// Domotz collector) does not have: a global of Node or of browsers (`fetch is not defined`), or
// a member of D that driverbox lacks (`D.device.sendSFTP is not a function`). The globals are
// left undefined, so `typeof fetch === 'undefined'` feature tests keep working and a run that
// uses none pays nothing: the message is only looked at when the run has failed.

/** What to use instead of each global a driver might expect. */
export const GLOBAL_HINTS: Readonly<Record<string, string>> = Object.freeze({
  fetch: 'use D.device.http.get / post / put / delete (D.createExternalDevice(host).http for another host)',
  XMLHttpRequest: 'use D.device.http.get / post / put / delete (D.createExternalDevice(host).http for another host)',
  WebSocket: 'driverbox, like the Domotz collector, has no WebSocket; poll with D.device.http',
  EventSource: 'driverbox, like the Domotz collector, has no EventSource; poll with D.device.http',
  process: 'a driver has no process: its parameters come from D.getParameter(name), the device from D.device.ip() / username() / password()',
  Buffer: 'use D._unsafe.buffer.from / alloc / concat',
  setImmediate: 'use setTimeout(fn, 0) or Promise.resolve().then(fn)',
  clearImmediate: 'use setTimeout / clearTimeout',
  queueMicrotask: 'use Promise.resolve().then(fn)',
  module: 'a driver is a script, not a module: its entry points (validate, get_status, custom_N) are top-level functions and nothing is exported',
  exports: 'a driver is a script, not a module: its entry points (validate, get_status, custom_N) are top-level functions and nothing is exported',
  global: 'use globalThis',
  window: 'a driver runs in no browser; use globalThis',
  self: 'a driver runs in no browser; use globalThis',
  document: 'a driver runs in no browser; to read HTML use D.htmlParse(html)',
  navigator: 'a driver runs in no browser',
  localStorage: 'a driver keeps nothing between runs; use the device or D.createVariable values',
  sessionStorage: 'a driver keeps nothing between runs',
  atob: 'use D._unsafe.buffer.from(text, "base64").toString()',
  btoa: 'use D._unsafe.buffer.from(text).toString("base64")',
  crypto: 'use D.crypto (hash, hmac, pbkdf2Sync, createCipher, createDecipher)',
  performance: 'use Date.now()',
  URL: 'build or split the url by hand (encodeURIComponent / decodeURIComponent), or pass the query as the http qs option',
  URLSearchParams: 'build the query by hand (encodeURIComponent), or pass it as the http qs option',
  TextEncoder: 'use D._unsafe.buffer.from(text)',
  TextDecoder: 'use buffer.toString(encoding) on a D._unsafe.buffer',
  structuredClone: 'use JSON.parse(JSON.stringify(value))',
  AbortController: 'give the request a timeout option instead',
  __dirname: 'a driver has no file system',
  __filename: 'a driver has no file system',
});

const COMPATIBILITY = 'docs/COMPATIBILITY.md';

/**
 * Members of D that driverbox has, as paths (`device.http.get`): for a `Cannot read properties
 * of undefined (reading 'x')` on a line that uses `D.a.b.x`, the first missing prefix is named.
 */
export const KNOWN_D_MEMBERS: ReadonlySet<string> = new Set([
  'errorType', 'valueType', 'success', 'failure', 'createVariable', 'createMetric', 'createTable', 'getParameter',
  'device', 'createExternalDevice', 'htmlParse', 'crypto', 'math', '_unsafe', 'q', '_',
  'createBackup', 'tftpServer',
  'device.ip', 'device.hostname', 'device.username', 'device.password', 'device.serial', 'device.macAddress',
  'device.createVariable', 'device.http', 'device.sendSSHCommand', 'device.sendSSHCommands', 'device.sendTelnetCommand',
  'device.createSNMPSession', 'device.sendWinRMCommand',
  'device.http.get', 'device.http.post', 'device.http.put', 'device.http.delete', 'device.http.getTLSCertificate',
  'crypto.hash', 'crypto.hmac', 'crypto.pbkdf2Sync', 'crypto.createCipher', 'crypto.createDecipher',
  'math.percent', '_unsafe.buffer', '_unsafe.buffer.from', '_unsafe.buffer.alloc', '_unsafe.buffer.concat',
  'tftpServer.accept',
]);

const NOT_DEFINED = /^ReferenceError: ([A-Za-z_$][\w$]*) is not defined/;
const NOT_A_FUNCTION = /^TypeError: ((?:D|D\.createExternalDevice\(\.\.\.\))(?:\.[A-Za-z_$][\w$]*)+) is not a function/;
const READING = /^TypeError: Cannot read properties of (?:undefined|null) \(reading '([A-Za-z_$][\w$]*)'\)/;

/** The hint for one failure message, or null. `lineOf` gives a line of the driver's source. */
export function hintFor(message: string, lineOf?: (line: number) => string | undefined): string | null {
  const undefinedName = NOT_DEFINED.exec(message)?.[1];
  if (undefinedName !== undefined) {
    const instead = Object.hasOwn(GLOBAL_HINTS, undefinedName) ? GLOBAL_HINTS[undefinedName] : undefined;
    return instead ? `driverbox has no global ${undefinedName}: ${instead} (${COMPATIBILITY})` : null;
  }
  const member = NOT_A_FUNCTION.exec(message)?.[1];
  if (member !== undefined) {
    const shown = member.replace('D.createExternalDevice(...)', 'D.createExternalDevice(host)');
    return `driverbox does not have ${shown}(): see ${COMPATIBILITY} for what D offers`;
  }
  const reading = READING.exec(message)?.[1];
  if (reading !== undefined && lineOf) {
    const at = /\.js:(\d+):\d+\)?\s*$/m.exec(message);
    const text = at ? lineOf(Number(at[1])) : undefined;
    if (text === undefined) return null;
    // D.a.b.reading on that line: name the first part of the chain driverbox lacks.
    for (const match of text.matchAll(/\bD((?:\s*\.\s*[A-Za-z_$][\w$]*)+)/g)) {
      const parts = match[1]!.split('.').map((p) => p.trim()).filter(Boolean);
      const at = parts.indexOf(reading);
      if (at < 1) continue;
      for (let i = 1; i <= at; i++) {
        const path = parts.slice(0, i).join('.');
        if (!KNOWN_D_MEMBERS.has(path)) return `driverbox does not have D.${path}: see ${COMPATIBILITY} for what D offers`;
      }
    }
  }
  return null;
}

/** A run's failure message with its hint appended (on a line of its own), if there is one. */
export function withHint(message: string | null, source: string | undefined): string | null {
  if (message === null) return null;
  const lines = source === undefined ? undefined : (n: number) => source.split('\n')[n - 1];
  const hint = hintFor(message, lines);
  return hint ? `${message}\n${hint}` : message;
}

/** Log lines looked at for a hint, from the end: a driver that caught the error logged it just before failing. */
const LOG_LINES_READ = 20;

/**
 * The run's warnings, plus one hint when the failure message had none but a log line shows the
 * error (a driver that caught `fetch is not defined` in a promise chain, logged it and called
 * D.failure).
 */
export function withLogHints(warnings: readonly string[], logs: ReadonlyArray<{ message: string }>, message: string | null): string[] {
  const out = [...warnings];
  if (message !== null && hintFor(message) !== null) return out;
  for (let i = logs.length - 1; i >= 0 && i >= logs.length - LOG_LINES_READ; i--) {
    const text = logs[i]!.message;
    const at = text.search(/(ReferenceError|TypeError): /);
    if (at < 0) continue;
    const hint = hintFor(text.slice(at));
    if (hint) {
      out.push(`the driver logged "${text.slice(at, at + 200).split('\n')[0]}": ${hint}`);
      break;
    }
  }
  return out;
}
