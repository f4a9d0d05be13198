// The surface a driver really gets, read from inside a sandbox run, and the same surface as a
// .js file of property accesses, so the compiler can say what the declarations lack.
//
// A probe names one value a driver can hold: `D` and `console` themselves, what D's functions
// make (a table, a cipher, a cheerio selection…) and what its callbacks receive (a response, a
// request error, a TLS certificate). driverbox's own values are walked to every depth; a
// library's (q, lodash, cheerio, buffer) two levels down — its members, then their own keys —
// leaving out the library's `_`-prefixed internals.

export interface Probe {
  /** Paths start with it; in the typed file, a variable holding the value. */
  name: string;
  owner: 'driverbox' | 'library';
  /** An expression for the value; for an async probe, a statement that calls `take(value)`. */
  value: string;
  /** Async probes: the typed counterpart, a statement whose callback names the value `name` and holds `%LINES%`. */
  typed?: string;
}

const HTML = `'<table><tr><td id="a">x<!-- note --></td></tr></table>'`;

export const PROBES: Probe[] = [
  { name: 'D', owner: 'driverbox', value: 'D' },
  { name: 'console', owner: 'driverbox', value: 'console' },
  { name: 'Table', owner: 'driverbox', value: `D.createTable('t', [{ label: 'a', unit: 'u', valueType: D.valueType.NUMBER }])` },
  { name: 'Variable', owner: 'driverbox', value: `D.createVariable('v', 'V', 1, 'u', D.valueType.NUMBER)` },
  { name: 'ExternalDevice', owner: 'driverbox', value: `D.createExternalDevice('127.0.0.1', { username: 'u', password: 'p' })` },
  { name: 'Cipher', owner: 'driverbox', value: `D.crypto.createCipher('aes-128-cbc', '0123456789abcdef', '0123456789abcdef')` },
  {
    name: 'HttpResponse',
    owner: 'driverbox',
    value: `D.device.http.get({ url: '/set-cookie?cookie=a%3D1' }, function (error, response) { take(response || error); });`,
    typed: `D.device.http.get({ url: '/set-cookie?cookie=a%3D1' }, function (error, HttpResponse) {\n%LINES%\n});`,
  },
  {
    name: 'HttpError',
    owner: 'driverbox',
    value: `D.device.http.get({ url: 'not-a-path' }, function (error) { take(error); });`,
    typed: `D.device.http.get({ url: 'not-a-path' }, function (HttpError) {\n%LINES%\n});`,
  },
  {
    name: 'TlsCertificate',
    owner: 'driverbox',
    value: `D.device.http.getTLSCertificate({ port: 443 }, function (error, certificate) { take(certificate || error); });`,
    typed: `D.device.http.getTLSCertificate({ port: 443 }, function (error, TlsCertificate) {\n%LINES%\n});`,
  },
  { name: 'Bytes', owner: 'library', value: `D._unsafe.buffer.from('ab')` },
  { name: 'CheerioAPI', owner: 'library', value: `D.htmlParse(${HTML})` },
  { name: 'Cheerio', owner: 'library', value: `D.htmlParse(${HTML})('td')` },
  { name: 'Element', owner: 'library', value: `D.htmlParse(${HTML})('td').get(0)` },
  { name: 'TextNode', owner: 'library', value: `D.htmlParse(${HTML})('td').contents().get(0)` },
  { name: 'CommentNode', owner: 'library', value: `D.htmlParse(${HTML})('td').contents().get(1)` },
  { name: 'Document', owner: 'library', value: `D.htmlParse(${HTML}).root().get(0)` },
  { name: 'Q', owner: 'library', value: 'D.q' },
  { name: 'QDeferred', owner: 'library', value: 'D.q.defer()' },
  { name: 'QPromise', owner: 'library', value: 'D.q(1)' },
  { name: 'Lodash', owner: 'library', value: 'D._' },
  { name: 'LodashWrapper', owner: 'library', value: 'D._([1, 2])' },
];

/** One member found at run time. */
export interface SurfaceEntry {
  /** e.g. `D.device.http.get`, `Cheerio.0.parent`. */
  path: string;
  /** typeof, with 'null' and 'array' told apart. */
  kind: string;
  /** Whether its members were listed: all of them (own and inherited), own enumerable keys only, or none. */
  listed: 'all' | 'own' | 'none';
  /** String values (to compare with literal types). */
  value?: string;
}

export interface RuntimeSurface {
  /** Every global name but the driver's own. */
  globals: string[];
  entries: SurfaceEntry[];
}

/** A driver whose get_status reports the surface as one JSON log line. */
export function surfaceDriver(): string {
  const sync = PROBES.filter((p) => !p.typed);
  const async = PROBES.filter((p) => p.typed);
  return `
var OWN_GLOBALS = ['OWN_GLOBALS', 'BUILT_INS', 'LIBRARY_BOUNDARIES', 'get_status', 'surfaceMembers', 'surfaceWalk', 'surfaceReport'];
var BUILT_INS = [Object.prototype, Function.prototype, Array.prototype, Error.prototype, RegExp.prototype,
  ArrayBuffer.prototype, Uint8Array.prototype, Object.getPrototypeOf(Uint8Array.prototype)];
var LIBRARY_BOUNDARIES = ['D.q', 'D._'];

function surfaceMembers(value, inherited, library) {
  var names = Object.keys(value);
  if (inherited) {
    for (var p = Object.getPrototypeOf(value); p && BUILT_INS.indexOf(p) < 0; p = Object.getPrototypeOf(p)) {
      Object.getOwnPropertyNames(p).forEach(function (n) { if (n !== 'constructor' && names.indexOf(n) < 0) names.push(n); });
    }
  }
  return library ? names.filter(function (n) { return n.charAt(0) !== '_'; }) : names;
}

function surfaceWalk(value, path, depth, library, seen, out) {
  var kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  var entry = { path: path, kind: kind, listed: 'none' };
  if (typeof value === 'string') entry.value = value;
  out.push(entry);
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.indexOf(value) >= 0 || LIBRARY_BOUNDARIES.indexOf(path) >= 0) return;
  if (library && depth > 1) return;
  seen.push(value);
  var inherited = !library || depth === 0;
  entry.listed = inherited ? 'all' : 'own';
  surfaceMembers(value, inherited, library).forEach(function (name) {
    surfaceWalk(value[name], path + '.' + name, depth + 1, library, seen, out);
  });
}

function get_status() {
  var found = {};
  var pending = ${async.length};
${sync.map((p) => `  found[${JSON.stringify(p.name)}] = ${p.value};`).join('\n')}
${async
  .map(
    (p) => `  (function (take) { ${p.value} })(function (value) {
    found[${JSON.stringify(p.name)}] = value;
    if (--pending === 0) surfaceReport(found);
  });`,
  )
  .join('\n')}
}

function surfaceReport(found) {
  var out = [];
  var owners = ${JSON.stringify(Object.fromEntries(PROBES.map((p) => [p.name, p.owner])))};
  Object.keys(owners).forEach(function (name) {
    surfaceWalk(found[name], name, 0, owners[name] === 'library', [], out);
  });
  var globals = Object.getOwnPropertyNames(globalThis).filter(function (n) { return OWN_GLOBALS.indexOf(n) < 0; });
  console.log(JSON.stringify({ globals: globals, entries: out }));
  D.success();
}
`;
}

/** A JS accessor for a path: `Cheerio.0.x-mode` → `Cheerio[0]["x-mode"]`. */
export function accessor(path: string): string {
  const [head, ...rest] = path.split('.');
  return head + rest.map((key) => (/^\d+$/.test(key) ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`)).join('');
}

/**
 * The surface as a .js file: one property access per runtime member, each probe bound the way
 * a driver would get it. Returns the text and which entry each line holds.
 */
export function surfaceCheckFile(entries: SurfaceEntry[]): { text: string; entryAtLine: Map<number, SurfaceEntry> } {
  const lines: string[] = ['// Generated by test/types.test.ts: every member a driver gets at run time.'];
  const entryAtLine = new Map<number, SurfaceEntry>();
  for (const probe of PROBES) {
    const mine = entries.filter((e) => e.path === probe.name || e.path.startsWith(`${probe.name}.`));
    const [before, after] = probe.typed
      ? probe.typed.split('%LINES%')
      : [`(function () {\n${probe.value === probe.name ? '' : `  var ${probe.name} = ${probe.value};\n`}`, '})();'];
    lines.push(...before!.split('\n').filter((l) => l !== ''));
    for (const entry of mine) {
      lines.push(`  ${accessor(entry.path)};`);
      entryAtLine.set(lines.length, entry);
    }
    lines.push(...after!.split('\n').filter((l) => l !== ''));
  }
  return { text: `${lines.join('\n')}\n`, entryAtLine };
}
