#!/usr/bin/env node
// Runs every driver of a folder through driverbox (validate and get_status, against 127.0.0.1
// where nothing listens, with a short deadline) and sorts each outcome: a compatibility gap
// (something driverbox lacks: "is not a function", "is not defined", "not supported"), a
// network error (expected: there is no device), or another failure. It prints a table of the
// gaps; it keeps nothing of the drivers. Parameters come from the driver's .json sidecar
// (the `value` of each parameter) when there is one.
//
//   node scripts/build.mjs            # once: it runs dist/
//   node scripts/corpus-check.mjs <folder> [--timeout <ms>] [--allow-external] [--json] [--json-out <file>]
//
// External hosts (D.createExternalDevice) are refused unless --allow-external: with it, cloud
// drivers try their real APIs (with no credentials), so use it only where that is fine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// isolated-vm needs Node started with --no-node-snapshot: run again with it (as bin/driverbox.js does).
if (!process.execArgv.includes('--no-node-snapshot')) {
  const again = spawnSync(process.execPath, ['--no-node-snapshot', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let driverbox;
let modules;
let knownGlobals;
try {
  driverbox = await import(path.join(root, 'dist/host/index.js'));
  modules = await import(path.join(root, 'dist/host/driver/modules-used.js'));
  ({ GLOBAL_HINTS: knownGlobals } = await import(path.join(root, 'dist/host/driver/compat-table.js')));
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
  console.error('usage: node scripts/corpus-check.mjs <folder of drivers> [--timeout <ms>] [--allow-external] [--json]');
  process.exit(2);
}
const timeoutMs = Number(flag('--timeout') ?? 5000);
const json = args.includes('--json');

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
    for (const p of meta.parameters ?? []) if (p && typeof p.name === 'string') out[p.name] = p.value ?? (p.value_type === 'LIST' ? [] : p.value_type === 'NUMBER' ? 0 : '');
    return out;
  } catch {
    return {};
  }
}

// A gap: something of D or a global driverbox lacks. "x is not defined / not a function" for a
// name of the driver's own is a bug of the driver (often on its error path), not a gap.
const GAP_MEMBER = /(?:^|\s)(D(?:\.createExternalDevice\(\.\.\.\))?(?:\.[\w$]+)+) is not a function/;
const GAP_MODULE = /not supported|NOT_SUPPORTED/i;
const UNDEFINED = /(?:^|\s)([\w$]+) is not defined/;
const OWN_BUG = /is not a function|is not defined/;
const NETWORK = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|socket hang up|connect|Timeout|timed out|TIMEOUT_ERROR|RESOURCE_UNAVAILABLE|AUTHENTICATION_ERROR|Permission denied|does not allow/i;

/** gap | network | success | other, with the text that decided it. */
function classify(result, source, calls) {
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
  const isGap = (t) => GAP_MEMBER.test(t) || GAP_MODULE.test(t) || missingGlobal(t);
  const gap = texts.find(isGap);
  if (gap) return { outcome: 'gap', detail: gap.split('\n')[0].slice(0, 160) };
  const bug = texts.find((t) => OWN_BUG.test(t));
  if (bug) return { outcome: 'driver bug', detail: bug.split('\n')[0].slice(0, 160) };
  if (result.status === 'success') return { outcome: 'success', detail: '' };
  const network = texts.find((t) => NETWORK.test(t)) ?? (result.http.some((h) => h.error) ? 'a request failed' : undefined);
  if (network || result.errorType === 'TIMEOUT_ERROR') return { outcome: 'network', detail: (network ?? result.message ?? '').split('\n')[0].slice(0, 160) };
  return { outcome: 'other', detail: `${result.errorType}: ${(result.message ?? '').split('\n')[0].slice(0, 150)}` };
}

const host = driverbox.createHost({ warmIsolates: 2, externalHosts: args.includes('--allow-external') ? () => true : [] });
const list = drivers(path.resolve(folder));
const rows = [];
const scratch = mkdtempSync(path.join(tmpdir(), 'corpus-check-'));
try {
  for (const { file, source } of list) {
    const name = path.relative(path.resolve(folder), file);
    const used = modules.modulesUsed(source).modules.map((m) => m.name);
    // validate, and get_status and backup where the driver defines them (backup drivers have no get_status).
    const actions = ['validate', ...['get_status', 'backup'].filter((a) => new RegExp(`\\bfunction\\s+${a}\\s*\\(`).test(source))];
    for (const action of actions) {
      let verdict;
      try {
        // Recorded, to see every protocol call's answer, also those the driver does not log.
        const record = path.join(scratch, 'run.json');
        const result = await host.run({
          record,
          source,
          filename: path.basename(file),
          action,
          device: { ip: '127.0.0.1', username: 'user', password: 'password' },
          parameters: parametersOf(file),
          limits: { timeoutMs },
        });
        const calls = existsSync(record) ? JSON.parse(readFileSync(record, 'utf8')).exchanges.filter((e) => e.kind !== 'http' && e.kind !== 'tls') : [];
        rmSync(record, { force: true });
        verdict = classify(result, source, calls);
      } catch (error) {
        // An entry point this driverbox cannot run yet (backup(), before the backup module) is a gap too.
        verdict = /unknown action "backup"/.test(error.message) ? { outcome: 'gap', detail: 'the backup() entry point is not supported' } : { outcome: 'other', detail: `host: ${error.message}` };
      }
      rows.push({ driver: name, action, modules: used, ...verdict });
    }
  }
} finally {
  await host.close();
  rmSync(scratch, { recursive: true, force: true });
}

const jsonOut = flag('--json-out');
if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify(rows, null, 2)}\n`);
if (json) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  const count = (o) => rows.filter((r) => r.outcome === o).length;
  console.log(
    `${list.length} drivers, ${rows.length} runs: ${count('gap')} gaps, ${count('network')} network errors (expected), ${count('success')} successes, ` +
      `${count('driver bug')} errors in the drivers' own code, ${count('other')} other failures`,
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
  for (const [outcome, title] of [
    ['driver bug', "errors in the drivers' own code (an undeclared name or a wrong type, often on the error path the missing device takes):"],
    ['other', 'other failures (no device, parameters without values, …):'],
  ]) {
    const list = rows.filter((r) => r.outcome === outcome);
    if (!list.length) continue;
    console.log(`\n${title}`);
    for (const r of list) console.log(`  ${r.driver} ${r.action}: ${r.detail}`);
  }
}
