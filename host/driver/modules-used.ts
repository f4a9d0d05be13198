// Which of driverbox's modules a driver uses, from a static scan of its code (comments and
// strings left out, host/driver/scan.ts), and what it reaches for that driverbox does not have:
// a global of Node or of browsers (fetch, Buffer, process…), a member of D driverbox lacks.
// `drivers add` and `actions` show it, so a driver is never called valid without saying what it
// needs. A scan, not a run: a driver that builds member names at run time is not seen through.
import { GLOBAL_HINTS, KNOWN_D_MEMBERS } from './compat-table.js';
import { segments } from './scan.js';

export interface DriverModule {
  /** The module's short name, as listed: http, ssh, snmp… */
  name: string;
  /** What the driver calls that made it count. */
  what: string;
  /** Where its reference is. */
  docs: string;
}

export interface ModulesUsed {
  /** In the order of MODULES. */
  modules: DriverModule[];
  /** What the driver uses that driverbox does not have, one sentence each. */
  missing: string[];
}

interface ModuleRule {
  name: string;
  what: string;
  docs: string;
  test: RegExp;
}

// `.member` with optional spaces: D.device.http.get, device.http.get, ext.http.get…
const member = (name: string) => new RegExp(`\\.\\s*${name}\\b`);

export const MODULES: readonly ModuleRule[] = [
  { name: 'http', what: 'D.device.http.get / post / put / delete', docs: 'docs/reference/driver-api.md#http-ddevicehttp', test: /\.\s*http\s*\.\s*(?:get|post|put|delete)\b|\bD\s*\.\s*device\s*\.\s*http\b/ },
  { name: 'tls', what: 'http.getTLSCertificate', docs: 'docs/reference/driver-api.md#tls-ddevicehttpgettlscertificate-port--callbackerror-certificate', test: member('getTLSCertificate') },
  { name: 'ssh', what: 'sendSSHCommand', docs: 'docs/reference/driver-api/ssh.md', test: /\.\s*sendSSHCommand\b(?!s)/ },
  { name: 'sshShell', what: 'sendSSHCommands', docs: 'docs/reference/driver-api/ssh.md', test: member('sendSSHCommands') },
  { name: 'telnet', what: 'sendTelnetCommand', docs: 'docs/reference/driver-api/telnet.md', test: member('sendTelnetCommand') },
  { name: 'snmp', what: 'createSNMPSession', docs: 'docs/reference/driver-api/snmp.md', test: member('createSNMPSession') },
  { name: 'winrm', what: 'sendWinRMCommand', docs: 'docs/reference/driver-api/winrm.md', test: member('sendWinRMCommand') },
  { name: 'backup', what: 'D.createBackup / backup()', docs: 'docs/reference/driver-api/backup.md', test: /\bD\s*\.\s*createBackup\b|^\s*(?:function\s+backup\s*\(|(?:var|let|const)\s+backup\s*=)/m },
  { name: 'tftp', what: 'D.tftpServer', docs: 'docs/reference/driver-api/backup.md', test: /\bD\s*\.\s*tftpServer\b/ },
  { name: 'external devices', what: 'D.createExternalDevice', docs: 'docs/reference/driver-api.md#other-members', test: /\bD\s*\.\s*createExternalDevice\b/ },
  { name: 'timers', what: 'setTimeout / setInterval', docs: 'docs/reference/driver-api/timers.md', test: /(?<![.\w$])(?:setTimeout|setInterval)\s*\(/ },
  { name: 'crypto', what: 'D.crypto', docs: 'docs/reference/driver-api.md#other-members', test: /\bD\s*\.\s*crypto\b/ },
  { name: 'q', what: 'D.q', docs: 'docs/reference/driver-api.md#other-members', test: /\bD\s*\.\s*q\b/ },
  { name: 'lodash', what: 'D._', docs: 'docs/reference/driver-api.md#other-members', test: /\bD\s*\.\s*_(?![\w$])/ },
  { name: 'html', what: 'D.htmlParse', docs: 'docs/reference/driver-api.md#other-members', test: /\bD\s*\.\s*htmlParse\b/ },
  { name: 'buffer', what: 'D._unsafe.buffer', docs: 'docs/reference/driver-api.md#other-members', test: /\bD\s*\.\s*_unsafe\b/ },
];

/** Objects of D whose members are driverbox's own and listed (libraries and constants are not). */
const CHECKED_OBJECTS = new Set(['', 'device', 'device.http', 'crypto', 'math', '_unsafe', '_unsafe.buffer', 'tftpServer']);

/** D.a.b.c chains in code: each prefix under a checked object must be a member driverbox has. */
function unknownMembers(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/(?<![.\w$])D((?:\s*\.\s*[A-Za-z_$][\w$]*)+)/g)) {
    const parts = match[1]!.split('.').map((p) => p.trim()).filter(Boolean);
    for (let i = 1; i <= parts.length; i++) {
      const parent = parts.slice(0, i - 1).join('.');
      if (!CHECKED_OBJECTS.has(parent)) break;
      const path = parts.slice(0, i).join('.');
      if (!KNOWN_D_MEMBERS.has(path)) {
        found.add(path);
        break;
      }
    }
  }
  return [...found];
}

/** Globals driverbox lacks that the code reads (not as a member, a declaration or an object key). */
function missingGlobals(code: string): string[] {
  const found: string[] = [];
  for (const name of Object.keys(GLOBAL_HINTS)) {
    // name not preceded by . (a member) or a word character, not followed by : (a key) and not declared by the driver itself.
    const use = new RegExp(`(?<![.\\w$])${name.replace('$', '\\$')}(?![\\w$])(?!\\s*:)`);
    if (!use.test(code)) continue;
    const declared = new RegExp(`\\b(?:var|let|const|function|class)\\s+${name}\\b|[(,]\\s*${name}\\s*[,)]`);
    if (declared.test(code)) continue;
    // Only `typeof name` tests: a feature test, which works.
    const uses = code.match(new RegExp(`(?<![.\\w$])${name}(?![\\w$])(?!\\s*:)`, 'g'))?.length ?? 0;
    const typeofs = code.match(new RegExp(`\\btypeof\\s+${name}(?![\\w$])`, 'g'))?.length ?? 0;
    if (uses > typeofs) found.push(name);
  }
  return found;
}

export function modulesUsed(source: string): ModulesUsed {
  const code = segments(source)
    .filter((s) => s.kind === 'code')
    .map((s) => s.text)
    .join(' ');
  const modules = MODULES.filter((m) => m.test.test(code)).map(({ name, what, docs }) => ({ name, what, docs }));
  const missing = [
    ...unknownMembers(code).map((path) => `D.${path}: driverbox does not have it (docs/reference/compatibility.md lists what D offers)`),
    ...missingGlobals(code).map((name) => `${name}: driverbox has no such global; ${GLOBAL_HINTS[name]}`),
  ];
  if (/(?<![.\w$])require\s*\(/.test(code)) missing.push('require(): not allowed in a driver (the run fails with REQUIRE_NOT_ALLOWED); everything a driver may use is on D');
  return { modules, missing };
}

/** "http, ssh, timers" or "no module (D's own members only)". */
export function describeModules(used: ModulesUsed): string {
  return used.modules.length ? used.modules.map((m) => m.name).join(', ') : 'none of the network modules';
}
