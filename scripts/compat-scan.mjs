#!/usr/bin/env node
// Lists what a folder of drivers uses of D (every D.a.b… member chain) and of the globals a
// sandbox may or may not have (timers, console, fetch, Buffer…), with how many drivers use
// each, and where driverbox has it. It reads the drivers; it keeps nothing of their code.
//
//   node scripts/build.mjs            # once: the scan uses dist/host/driver/scan.js
//   node scripts/compat-scan.mjs <folder> [--markdown | --json]
//
// docs/reference/compatibility.md's tables are its --markdown output for the official example drivers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let scan;
let compat;
let constants;
try {
  scan = await import(path.join(root, 'dist/host/driver/scan.js'));
  compat = await import(path.join(root, 'dist/host/driver/compat-table.js'));
  constants = await import(path.join(root, 'dist/runtime/constants.js'));
} catch {
  console.error('compat-scan: build driverbox first (node scripts/build.mjs): it uses dist/host/driver/scan.js');
  process.exit(2);
}

const args = process.argv.slice(2);
const folder = args.find((a) => !a.startsWith('--'));
const format = args.includes('--json') ? 'json' : args.includes('--markdown') ? 'markdown' : 'text';
if (!folder) {
  console.error('usage: node scripts/compat-scan.mjs <folder of drivers> [--markdown | --json]');
  process.exit(2);
}

/** Every .js file under `dir` that looks like a driver (it defines validate or get_status). */
function drivers(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) {
      if (name !== 'node_modules' && !name.startsWith('.')) out.push(...drivers(file));
    } else if (name.endsWith('.js')) {
      const source = readFileSync(file, 'utf8');
      if (/\bfunction\s+(validate|get_status)\s*\(|\b(validate|get_status)\s*=/.test(source)) out.push({ file, source });
    }
  }
  return out;
}

// Where driverbox has each member: the longest matching prefix wins. `provided` by this issue's
// protocol modules means the module exists on D (docs/reference/driver-api/<proto>.md).
const WHERE = [
  ['D.success', 'core', 'docs/reference/driver-api.md#ending-a-run'],
  ['D.failure', 'core', 'docs/reference/driver-api.md#ending-a-run'],
  ['D.errorType', 'core', 'docs/reference/driver-api.md#ending-a-run'],
  ['D.valueType', 'core', 'docs/reference/driver-api.md#ending-a-run'],
  ['D.createVariable', 'core', 'docs/reference/driver-api.md#variables-dcreatevariableuid-label-value-unit-valuetype'],
  ['D.device.createVariable', 'core', 'docs/reference/driver-api.md#variables-dcreatevariableuid-label-value-unit-valuetype'],
  ['D.createMetric', 'core (issue 18)', 'docs/reference/driver-api/create-metric.md'],
  ['D.createTable', 'core', 'docs/reference/driver-api.md#tables-dcreatetablelabel-columnheaders'],
  ['D.getParameter', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.ip', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.hostname', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.username', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.password', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.serial', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.macAddress', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D.device.http.getTLSCertificate', 'tls', 'docs/reference/driver-api.md#tls-ddevicehttpgettlscertificate-port--callbackerror-certificate'],
  ['D.device.http', 'http', 'docs/reference/driver-api.md#http-ddevicehttp'],
  ['D.device.sendSSHCommands', 'ssh (issue 18)', 'docs/reference/driver-api/ssh.md'],
  ['D.device.sendSSHCommand', 'ssh (issue 18)', 'docs/reference/driver-api/ssh.md'],
  ['D.device.sendTelnetCommand', 'telnet (issue 18)', 'docs/reference/driver-api/telnet.md'],
  ['D.device.createSNMPSession', 'snmp (issue 18)', 'docs/reference/driver-api/snmp.md'],
  ['D.device.sendWinRMCommand', 'winrm (issue 18)', 'docs/reference/driver-api/winrm.md'],
  ['D.createBackup', 'backup (issue 18)', 'docs/reference/driver-api/backup.md'],
  ['D.tftpServer', 'backup (issue 18)', 'docs/reference/driver-api/backup.md'],
  ['D.createExternalDevice', 'external devices', 'docs/reference/driver-api.md#other-members'],
  ['D.htmlParse', 'cheerio', 'docs/reference/driver-api.md#other-members'],
  ['D.crypto', 'crypto', 'docs/reference/driver-api.md#other-members'],
  ['D.math', 'core', 'docs/reference/driver-api.md#other-members'],
  ['D._unsafe.buffer', 'buffer', 'docs/reference/driver-api.md#other-members'],
  ['D.q', 'q 1.x', 'docs/reference/driver-api.md#other-members'],
  ['D._', 'lodash 4', 'docs/reference/driver-api.md#other-members'],
  ['D.device', 'core', 'docs/reference/driver-api.md#other-members'],
  ['setTimeout', 'timers (issue 18)', 'docs/reference/driver-api/timers.md'],
  ['clearTimeout', 'timers (issue 18)', 'docs/reference/driver-api/timers.md'],
  ['setInterval', 'timers (issue 18)', 'docs/reference/driver-api/timers.md'],
  ['clearInterval', 'timers (issue 18)', 'docs/reference/driver-api/timers.md'],
  ['console', 'console', 'docs/reference/driver-api.md#other-members'],
  ['require', 'refused: REQUIRE_NOT_ALLOWED', 'docs/reference/driver-api.md#other-members'],
];

/** Members that exist only as D itself knows them: anything under them is the library's or a constant. */
const LEAF_OBJECTS = new Set(['D.q', 'D._', 'D.errorType', 'D.valueType']);
const CONSOLE_METHODS = /(?<![.\w$])console\s*\.\s*([A-Za-z_$][\w$]*)/g;
const TIMERS = /(?<![.\w$])(setTimeout|clearTimeout|setInterval|clearInterval)\s*\(/g;

function whereOf(member) {
  // D.errorType.X / D.valueType.X: a name D does not have is undefined at run time.
  const constant = /^D\.(errorType|valueType)\.(.+)$/.exec(member);
  if (constant && !Object.hasOwn(constants[constant[1]], constant[2])) {
    return {
      module: `MISSING (not a D.${constant[1]})`,
      docs: constant[1] === 'errorType' ? 'undefined: D.failure(undefined) reports GENERIC_ERROR, with a warning' : 'undefined: the variable is a STRING',
    };
  }
  let best = null;
  for (const entry of WHERE) {
    const [prefix] = entry;
    if ((member === prefix || member.startsWith(`${prefix}.`)) && (!best || prefix.length > best[0].length)) best = entry;
  }
  if (best) {
    // A member under an object D has, that D does not list, is missing (D.device.sendSFTP).
    const under = member.slice(2);
    const exact = compat.KNOWN_D_MEMBERS.has(under);
    const parentKnown = best[0] === member || LEAF_OBJECTS.has(best[0]) || exact || member.startsWith('D.device.http.') || member.startsWith('D.crypto.') || !member.startsWith('D.');
    if (!parentKnown && member.startsWith('D.') && !['D.errorType', 'D.valueType'].some((p) => member.startsWith(`${p}.`))) {
      if (!compat.KNOWN_D_MEMBERS.has(under)) return { module: 'MISSING', docs: 'none: driverbox does not have it' };
    }
    return { module: best[1], docs: best[2] };
  }
  if (Object.hasOwn(compat.GLOBAL_HINTS, member)) return { module: 'MISSING (no such global)', docs: compat.GLOBAL_HINTS[member] };
  return { module: 'MISSING', docs: 'none: driverbox does not have it' };
}

/** The members and globals one driver uses, each once. */
function usesOf(source) {
  const code = scan
    .segments(source)
    .filter((s) => s.kind === 'code')
    .map((s) => s.text)
    .join(' ');
  const used = new Set();
  for (const match of code.matchAll(/(?<![.\w$])D((?:\s*\.\s*[A-Za-z_$][\w$]*)+)/g)) {
    const parts = match[1].split('.').map((p) => p.trim()).filter(Boolean);
    // Cut at a library or constant object's first member: D.q.all, D.errorType.GENERIC_ERROR.
    let chain = 'D';
    for (const part of parts) {
      chain += `.${part}`;
      if (LEAF_OBJECTS.has(chain.split('.').slice(0, 2).join('.')) && chain.split('.').length >= 3) break;
    }
    used.add(chain);
  }
  for (const match of code.matchAll(/(?<![.\w$])D\s*\.\s*createExternalDevice\s*\([^()]*\)\s*\.\s*([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)/g)) {
    used.add(`D.createExternalDevice(…).${match[1].replace(/\s+/g, '')}`);
  }
  for (const match of code.matchAll(CONSOLE_METHODS)) used.add(`console.${match[1]}`);
  for (const match of code.matchAll(TIMERS)) used.add(match[1]);
  if (/(?<![.\w$])require\s*\(/.test(code)) used.add('require');
  for (const name of Object.keys(compat.GLOBAL_HINTS)) {
    const use = new RegExp(`(?<![.\\w$])${name.replace('$', '\\$')}(?![\\w$])(?!\\s*:)`);
    const declared = new RegExp(`\\b(?:var|let|const|function|class)\\s+${name}\\b|[(,]\\s*${name}\\s*[,)]`);
    if (use.test(code) && !declared.test(code)) used.add(name);
  }
  return used;
}

const list = drivers(path.resolve(folder));
const counts = new Map();
for (const { source } of list) for (const member of usesOf(source)) counts.set(member, (counts.get(member) ?? 0) + 1);
const rows = [...counts]
  .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  .map(([member, drivers]) => {
    const base = member.startsWith('D.createExternalDevice(…).') ? `D.device.${member.slice('D.createExternalDevice(…).'.length)}` : member;
    const where = base.startsWith('console.') ? whereOf('console') : whereOf(base);
    return { member, drivers, ...where };
  });

if (format === 'json') {
  console.log(JSON.stringify({ folder: path.resolve(folder), drivers: list.length, members: rows }, null, 2));
} else if (format === 'markdown') {
  console.log(`| member | drivers (of ${list.length}) | driverbox module | docs |`);
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| \`${r.member}\` | ${r.drivers} | ${r.module} | ${r.docs.startsWith('docs/reference/') ? `[${r.docs.replace(/^docs\/reference\//, '')}](${r.docs.replace(/^docs\/reference\//, '')})` : r.docs} |`);
} else {
  console.log(`${list.length} drivers in ${path.resolve(folder)}`);
  const width = Math.max(...rows.map((r) => r.member.length));
  for (const r of rows) console.log(`${r.member.padEnd(width)}  ${String(r.drivers).padStart(4)}  ${r.module}  ${r.docs}`);
  const missing = rows.filter((r) => r.module.startsWith('MISSING'));
  console.log(missing.length ? `\nmissing: ${missing.map((r) => r.member).join(', ')}` : '\nnothing missing');
}
