#!/usr/bin/env node
// Checks every driver of a folder against driverbox, two ways, and sorts what it finds:
//
// - statically: the calls the driver makes on the objects D hands it (tables, variables, external
//   devices, SNMP sessions, backups, timers, the callback arguments of D.device.* calls), found in
//   its syntax tree (scripts/lib/object-calls.mjs), against what the runtime's objects really have,
//   read by a probe in a real sandbox (scripts/lib/member-catalog.mjs): every member the runtime
//   lacks is listed, whether or not a run reaches the call;
// - dynamically: validate, get_status (and backup) run against a generic simulated device
//   (scripts/lib/generic-device.mjs) that answers every HTTP(S) request, on every port the driver
//   names, with plausible data built from the words the driver reads, so the paths that only run
//   when a device has rows run; drivers that use SSH, Telnet, SNMP or WinRM also get a simulator
//   (host/simulator) answering the commands and OIDs the driver names. Host names the driver or
//   its parameters name are pinned to the generic device.
//
// Each run is a compatibility gap (something driverbox lacks: "is not a function" on D or on one
// of its objects, "is not defined", "not supported"), a network error, a success, an error in
// the driver's own code, or another failure. It keeps nothing of the drivers. Parameters come
// from the driver's .json sidecar (the `value` of each parameter) when there is one.
//
//   node scripts/build.mjs            # once: it runs dist/
//   node scripts/corpus-check.mjs <folder> [--timeout <ms>] [--no-device] [--allow-external] [--json] [--json-out <file>]
//
// --no-device runs against 127.0.0.1 where nothing listens (the check before issue 36). External
// hosts (D.createExternalDevice) other than the pinned ones are refused unless --allow-external:
// with it, cloud drivers try their real APIs (with no credentials), so use it only where that is fine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGenericDevice } from './lib/generic-device.mjs';
import { lookup, memberCatalog } from './lib/member-catalog.mjs';
import { driverWords, objectCalls } from './lib/object-calls.mjs';
import { protocolFixture } from './lib/protocol-fixture.mjs';

// isolated-vm needs Node started with --no-node-snapshot: run again with it (as bin/driverbox.js does).
if (!process.execArgv.includes('--no-node-snapshot')) {
  const again = spawnSync(process.execPath, ['--no-node-snapshot', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let driverbox;
let modules;
let knownGlobals;
let makeCertificate;
try {
  driverbox = await import(path.join(root, 'dist/host/index.js'));
  modules = await import(path.join(root, 'dist/host/driver/modules-used.js'));
  ({ GLOBAL_HINTS: knownGlobals } = await import(path.join(root, 'dist/host/driver/compat-table.js')));
  ({ makeSimulatorCertificate: makeCertificate } = await import(path.join(root, 'dist/host/simulator/certificate.js')));
} catch {
  console.error('corpus-check: build driverbox first (node scripts/build.mjs)');
  process.exit(2);
}

const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const folder = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--timeout' && args[i - 1] !== '--json-out');
if (!folder) {
  console.error('usage: node scripts/corpus-check.mjs <folder of drivers> [--timeout <ms>] [--no-device] [--allow-external] [--json] [--json-out <file>]');
  process.exit(2);
}
const timeoutMs = Number(flag('--timeout') ?? 5000);
const json = args.includes('--json');
const withDevice = !args.includes('--no-device');
const allowExternal = args.includes('--allow-external');

function drivers(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) out.push(...drivers(file));
    else if (name.endsWith('.js')) {
      const source = readFileSync(file, 'utf8');
      if (/\bfunction\s+(validate|get_status)\s*\(/.test(source)) out.push({ file, source });
    }
  }
  return out;
}

/** The parameters a driver's sidecar declares, with their default values. */
function parametersOf(file) {
  const sidecar = file.replace(/\.js$/, '.json');
  if (!existsSync(sidecar)) return {};
  try {
    const meta = JSON.parse(readFileSync(sidecar, 'utf8'));
    const out = {};
    // A text left empty is given one, as a user configuring the driver would: "/" + tenant + "/token" needs a tenant.
    for (const p of meta.parameters ?? []) {
      if (p && typeof p.name === 'string') out[p.name] = p.value ?? (p.value_type === 'LIST' ? [] : p.value_type === 'NUMBER' ? 0 : '');
      if (withDevice && out[p?.name] === '') out[p.name] = 'generic';
    }
    return out;
  } catch {
    return {};
  }
}

// A gap: something of D or a global driverbox lacks. "x is not defined / not a function" for a
// name of the driver's own is a bug of the driver (often on its error path), not a gap.
const GAP_MEMBER = /(?:^|\s)(D(?:\.createExternalDevice\(\.\.\.\))?(?:\.[\w$]+)+) is not a function/;
const GAP_MODULE = /not supported by this driverbox|NOT_SUPPORTED/;
const UNDEFINED = /(?:^|\s)([\w$]+) is not defined/;
const OWN_BUG = /is not a function|is not defined/;
const NETWORK = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|socket hang up|connect|Timeout|timed out|TIMEOUT_ERROR|RESOURCE_UNAVAILABLE|AUTHENTICATION_ERROR|Permission denied|does not allow/i;

/** gap | network | success | other, with the text that decided it. `missing`: the members the static check found missing. */
function classify(result, source, calls, missing = []) {
  // A protocol call the module answered NOT_SUPPORTED, even if the driver swallowed the error (from the run's recording).
  const unsupported = calls.find((c) => c.answer?.error?.code === 'NOT_SUPPORTED');
  if (unsupported) return { outcome: 'gap', detail: unsupported.answer.error.message };
  const texts = [result.message ?? '', ...result.logs.map((l) => l.message), ...result.warnings, ...result.http.map((h) => `${h.error ?? ''} ${h.errorMessage ?? ''}`)];
  // A global driverbox lacks is a gap, unless the driver declares that name elsewhere (`const self = this`
  // in one function, `self.x` in another): then it is the driver's own scoping bug.
  const missingGlobal = (t) => {
    const name = UNDEFINED.exec(t)?.[1] ?? '';
    return Object.hasOwn(knownGlobals, name) && !new RegExp(`\\b(?:var|let|const|function)\\s+${name.replace('$', '\\$')}\\b`).test(source);
  };
  // "t.addMetrics is not a function" on an object of D's whose member the static check found missing.
  const missingMember = (t) => missing.some((m) => new RegExp(`\\.${m.member.split('.').pop().replace('$', '\\$')} is not a function`).test(t));
  const isGap = (t) => GAP_MEMBER.test(t) || GAP_MODULE.test(t) || missingGlobal(t) || missingMember(t);
  const gap = texts.find(isGap);
  if (gap) return { outcome: 'gap', detail: gap.split('\n')[0].slice(0, 160) };
  const bug = texts.find((t) => OWN_BUG.test(t));
  if (bug) return { outcome: 'driver bug', detail: bug.split('\n')[0].slice(0, 160) };
  if (result.status === 'success') return { outcome: 'success', detail: '' };
  const failed = result.http.find((h) => h.error);
  const network = texts.find((t) => NETWORK.test(t)) ?? (failed ? `a request failed: ${failed.error} ${failed.method} ${failed.url}` : undefined);
  if (network || result.errorType === 'TIMEOUT_ERROR') return { outcome: 'network', detail: (network ?? result.message ?? '').split('\n')[0].slice(0, 160) };
  return { outcome: 'other', detail: `${result.errorType}: ${(result.message ?? '').split('\n')[0].slice(0, 150)}` };
}

/** Host names the driver or its parameters name: pinned to the generic device. */
function namesOf(words, parameters) {
  const NAME = /^(?=.{4,253}$)[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i;
  const texts = [...words.strings, ...Object.values(parameters).flat().filter((v) => typeof v === 'string')];
  const names = new Set();
  for (const text of texts) {
    const host = /^https?:\/\/([^/:?#]+)/i.exec(text)?.[1] ?? text;
    if (NAME.test(host) && !/\.(js|json|xml|html?|txt|csv|php|cgi|asp|aspx)$/i.test(host)) names.add(host.toLowerCase());
  }
  return [...names];
}

/** Keys a device's JSON leaves out: a driver that sees `error` or `errors` takes its error path. */
const ERROR_WORDS = /^(error|errors|err|fault|faults|exception|failure|failed|errormessage|error_message|errorcode|error_code)$/i;
/** Ports every run maps to the generic device, besides those the driver names. */
const WEB_PORTS = [80, 443, 8000, 8008, 8080, 8081, 8088, 8443, 8888, 9000, 9443, 5000, 5001, 3000, 4443, 10443];

const list = drivers(path.resolve(folder));
// What each driver reads and names, read once: its pinned host names go in the certificate too.
for (const entry of list) {
  try {
    entry.words = driverWords(entry.source, entry.file);
  } catch (error) {
    entry.words = { properties: [], strings: [], ports: [] };
    entry.parseError = String(error.message).slice(0, 120);
  }
  entry.parameters = parametersOf(entry.file);
  entry.pinned = withDevice ? namesOf(entry.words, entry.parameters) : [];
}
// The generic device serves the member probe always, and the runs unless --no-device.
const certificate = await makeCertificate({ commonName: 'generic-device', names: [...new Set(list.flatMap((d) => d.pinned))], expiresInDays: 365 });
const host = driverbox.createHost({ warmIsolates: 2, trustedCAs: [certificate.cert], externalHosts: allowExternal ? () => true : [] });
const generic = await startGenericDevice({ certificate });
const device = withDevice ? generic : null;
const rows = [];
const statics = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'corpus-check-'));
try {
  const webMap = (ports) => Object.fromEntries([...new Set([...WEB_PORTS, ...ports])].map((p) => [p, generic.port]));
  generic.setVocabulary(['name']);
  const catalog = await memberCatalog(host, { ip: '127.0.0.1', portMap: webMap([]) });
  for (const { file, source, words, parameters, pinned, parseError } of list) {
    const name = path.relative(path.resolve(folder), file);
    const used = modules.modulesUsed(source).modules.map((m) => m.name);
    let missing = [];
    if (parseError) statics.push({ driver: name, kind: '(parse)', member: parseError, line: 0 });
    else missing = objectCalls(source, file).filter((c) => lookup(catalog, c.kind, c.member) === 'missing');
    for (const m of missing) statics.push({ driver: name, ...m });
    device?.setVocabulary(words.properties.filter((w) => !ERROR_WORDS.test(w)));
    // SSH / Telnet / SNMP / WinRM: a simulator answering what the driver names, for the drivers that use them.
    const fixture = device ? protocolFixture(used, words) : null;
    const sim = fixture ? await driverbox.startSimulator(fixture) : null;
    const portMap = { ...webMap(words.ports), ...(sim ? sim.portMap : {}) };
    delete portMap[sim?.httpPort ?? -1];
    const runDevice = device ? { ...(sim ? sim.device : {}), ip: '127.0.0.1', username: 'user', password: 'password', portMap } : { ip: '127.0.0.1', username: 'user', password: 'password' };
    // validate, and get_status and backup where the driver defines them (backup drivers have no get_status).
    const actions = ['validate', ...['get_status', 'backup'].filter((a) => new RegExp(`\\bfunction\\s+${a}\\s*\\(`).test(source))];
    try {
      for (const action of actions) {
        let verdict;
        let tableRows = 0;
        try {
          // Recorded, to see every protocol call's answer, also those the driver does not log.
          const record = path.join(scratch, 'run.json');
          const result = await host.run({
            record,
            source,
            filename: path.basename(file),
            action,
            device: runDevice,
            parameters,
            limits: { timeoutMs },
            ...(pinned.length ? { resolve: Object.fromEntries(pinned.map((n) => [n, { ip: '127.0.0.1', portMap }])), externalHosts: allowExternal ? () => true : pinned } : {}),
          });
          const calls = existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')).exchanges.filter((e) => e.kind !== 'http' && e.kind !== 'tls') : [];
          rmSync(record, { force: true });
          verdict = classify(result, source, calls, missing);
          tableRows = result.tables.reduce((n, t) => n + t.rows.length, 0);
        } catch (error) {
          // An entry point this driverbox cannot run yet (backup(), before the backup module) is a gap too.
          verdict = /unknown action "backup"/.test(error.message) ? { outcome: 'gap', detail: 'the backup() entry point is not supported' } : { outcome: 'other', detail: `host: ${error.message}` };
        }
        rows.push({ driver: name, action, modules: used, ...verdict, tableRows });
      }
    } finally {
      await sim?.close();
    }
  }
} finally {
  await host.close();
  await generic.close();
  rmSync(scratch, { recursive: true, force: true });
}

const jsonOut = flag('--json-out');
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ runs: rows, missingMembers: statics }, null, 2)}\n`);
if (json) {
  console.log(JSON.stringify({ runs: rows, missingMembers: statics }, null, 2));
} else {
  const count = (o) => rows.filter((r) => r.outcome === o).length;
  const withRows = rows.filter((r) => r.tableRows > 0);
  console.log(
    `${list.length} drivers, ${rows.length} runs: ${count('gap')} gaps, ${count('network')} network errors, ${count('success')} successes, ` +
      `${count('driver bug')} errors in the drivers' own code, ${count('other')} other failures; ` +
      `${withRows.length} runs reported table rows (${new Set(withRows.map((r) => r.driver)).size} drivers); ` +
      `${statics.length} calls to members the runtime lacks (${new Set(statics.map((s) => s.driver)).size} drivers)` +
      (device ? '' : ' [no device]'),
  );
  const byGap = new Map();
  for (const r of rows.filter((r) => r.outcome === 'gap')) {
    const key = r.detail.replace(/^.*?((?:D\.[\w.()]+|\w+) is not (?:a function|defined)|[\w.]+ is not supported by this driverbox yet|the backup\(\) entry point is not supported)(.*)$/i, '$1');
    const entry = byGap.get(key) ?? new Set();
    entry.add(r.driver);
    byGap.set(key, entry);
  }
  console.log('\n| gap | drivers |\n|---|---|');
  for (const [gap, names] of [...byGap].sort((a, b) => b[1].size - a[1].size)) console.log(`| ${gap} | ${names.size} |`);
  if (statics.length) {
    const byMember = new Map();
    for (const s of statics) {
      const key = `${s.kind}.${s.member}`;
      const entry = byMember.get(key) ?? new Set();
      entry.add(`${s.driver}:${s.line}`);
      byMember.set(key, entry);
    }
    console.log('\n| member the runtime lacks (static) | calls | where |\n|---|---|---|');
    for (const [member, where] of [...byMember].sort((a, b) => b[1].size - a[1].size)) console.log(`| ${member} | ${where.size} | ${[...where].slice(0, 4).join(', ')} |`);
  }
  for (const [outcome, title] of [
    ['driver bug', "errors in the drivers' own code (an undeclared name or a wrong type, often on an error path):"],
    ['other', 'other failures (parameters without values, data the generic device cannot fake, …):'],
  ]) {
    const list = rows.filter((r) => r.outcome === outcome);
    if (!list.length) continue;
    console.log(`\n${title}`);
    for (const r of list) console.log(`  ${r.driver} ${r.action}: ${r.detail}`);
  }
}
