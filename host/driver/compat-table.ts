// What driverbox offers a driver beyond the JavaScript built-ins, as tables the host reads:
// the globals a driver might expect and what to use instead (the hints of a failed run,
// host/engine/isolate/missing-hints.ts, and the warnings of `drivers add`, host/driver/modules-used.ts),
// and the members of D driverbox has (docs/reference/compatibility.md lists them with their docs).

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

