// The simulator fixture (host/simulator, docs/reference/simulator.md) that answers one driver's SSH,
// Telnet, SNMP and WinRM calls for scripts/corpus-check.mjs: the simulators answer exact
// commands and OIDs only, so the driver's own string literals are taken as its commands (each
// answered with a few lines of generic output) and its OID literals as the agent's OIDs (a
// scalar `.0` as it is, any other with two rows under it, for walks). null when the driver
// uses none of these modules. Bounded: at most MAX_COMMANDS commands and MAX_OIDS OIDs.
import { plausibleRows } from './generic-device.mjs';

const MAX_COMMANDS = 400;
const MAX_OIDS = 2000;
const OUTPUT = ['name: generic-device', 'status: ok', 'version: 1.0.0', 'uptime: 10 days', 'value: 10', '1  item-1  up  10  20', '2  item-2  up  20  40'].join('\n');
const OID = /^\.?(1\.3\.6(\.\d+){1,40})$/;

/** A literal that can be a command line: some letters, one line, not a URL, an OID or a JSON text. */
const commandLike = (text) => text.length >= 2 && text.length <= 200 && /[a-z]/i.test(text) && !/[\r\n]/.test(text) && !/^https?:/i.test(text) && !/^[{[<]/.test(text.trim()) && text.trim() === text;

export function protocolFixture(modules, words) {
  const uses = (m) => modules.includes(m);
  if (!['ssh', 'telnet', 'snmp', 'winrm'].some(uses)) return null;
  const commands = words.strings.filter(commandLike).slice(0, MAX_COMMANDS);
  const fixture = { fixture: 1, description: 'corpus-check: generic protocol device', device: { username: 'user', password: 'password' } };
  if (uses('ssh')) {
    const answers = Object.fromEntries(commands.map((c) => [c, OUTPUT]));
    fixture.ssh = { commands: answers, shell: { prompt: 'device#', commands: answers, unknownCommand: OUTPUT } };
  }
  if (uses('telnet')) fixture.telnet = { commands: Object.fromEntries(commands.map((c) => [c, OUTPUT])), unknownCommand: OUTPUT };
  if (uses('winrm')) {
    // PowerShell drivers mostly read JSON (ConvertTo-Json of rows): two records of the words the driver reads.
    const stdout = `${JSON.stringify(plausibleRows(words.properties.slice(0, 60)))}\r\n`;
    fixture.winrm = { https: true, commands: commands.filter((c) => c.length >= 3).map((c) => ({ contains: c, stdout })) };
    if (fixture.winrm.commands.length === 0) delete fixture.winrm;
  }
  if (uses('snmp')) {
    const literals = [...new Set(words.strings.map((s) => OID.exec(s)?.[1]).filter(Boolean))];
    const wanted = literals.flatMap((o) => (o.endsWith('.0') ? [o] : [`${o}.1`, `${o}.2`])).filter((o) => o.split('.').length >= 4);
    // An OID with a value has none below it: keep the leaves only.
    const all = [...new Set(wanted)].slice(0, MAX_OIDS);
    const leaves = all.filter((o) => !all.some((other) => other.startsWith(`${o}.`)));
    if (leaves.length) fixture.snmp = { oids: Object.fromEntries(leaves.map((o, i) => [o, i % 2 ? 20 : '10'])) };
  }
  return Object.keys(fixture).some((k) => ['ssh', 'telnet', 'winrm', 'snmp'].includes(k)) ? fixture : null;
}
