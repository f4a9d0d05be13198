// Validates a fixture's "ssh" section into the FixtureSsh the simulated SSH server runs.
import { describeValue, FieldChecker, fieldPath } from '../field-checker.js';
import type { FixtureDevice } from '../fixture-device.js';
import type { FixtureSsh, SimulatedExec, SimulatedShellCommand } from './types.js';

const SSH_FIELDS = ['port', 'commands', 'shell', 'comment'] as const;
const EXEC_FIELDS = ['stdout', 'stderr', 'exitCode', 'delayMs', 'comment'] as const;
const SHELL_FIELDS = ['banner', 'prompt', 'commands', 'unknownCommand', 'delayMs', 'comment'] as const;
const SHELL_COMMAND_FIELDS = ['output', 'prompt', 'delayMs', 'comment'] as const;
const MAX_DELAY_MS = 600_000;

const has = (o: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(o, key) && o[key] !== undefined;

/** A string, or a list of lines joined with "\n". */
function text(value: unknown, at: string, check: FieldChecker): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((line) => typeof line === 'string')) return value.join('\n');
  check.problem(at, `must be text or a list of lines (got ${describeValue(value)})`);
  return '';
}

function entries(value: unknown, at: string, check: FieldChecker): Array<[string, unknown, string]> {
  const object = check.object(value, at);
  if (!object) return [];
  return Object.entries(object).map(([key, entry]) => {
    if (key.trim() === '') check.problem(at, 'has an empty command line');
    return [key.trim(), entry, fieldPath(at, key)];
  });
}

function execOf(value: unknown, at: string, check: FieldChecker): SimulatedExec {
  if (typeof value === 'string' || Array.isArray(value)) return { stdout: text(value, at, check), stderr: '', exitCode: 0, delayMs: 0 };
  const object = check.object(value, at);
  if (!object) return { stdout: '', stderr: '', exitCode: 0, delayMs: 0 };
  check.knownFields(object, at, EXEC_FIELDS);
  return {
    stdout: has(object, 'stdout') ? text(object.stdout, fieldPath(at, 'stdout'), check) : '',
    stderr: has(object, 'stderr') ? text(object.stderr, fieldPath(at, 'stderr'), check) : '',
    exitCode: has(object, 'exitCode') ? (check.integer(object.exitCode, fieldPath(at, 'exitCode'), 0, 255) ?? 0) : 0,
    delayMs: has(object, 'delayMs') ? (check.integer(object.delayMs, fieldPath(at, 'delayMs'), 0, MAX_DELAY_MS) ?? 0) : 0,
  };
}

function shellCommandOf(value: unknown, at: string, check: FieldChecker): SimulatedShellCommand {
  if (typeof value === 'string' || Array.isArray(value)) return { output: text(value, at, check), prompt: null, delayMs: 0 };
  const object = check.object(value, at);
  if (!object) return { output: '', prompt: null, delayMs: 0 };
  check.knownFields(object, at, SHELL_COMMAND_FIELDS);
  return {
    output: has(object, 'output') ? text(object.output, fieldPath(at, 'output'), check) : '',
    prompt: has(object, 'prompt') ? check.string(object.prompt, fieldPath(at, 'prompt')) : null,
    delayMs: has(object, 'delayMs') ? (check.integer(object.delayMs, fieldPath(at, 'delayMs'), 0, MAX_DELAY_MS) ?? 0) : 0,
  };
}

/** The "ssh" section, checked; problems go to `check`. `httpPorts`: ports the fixture serves otherwise. */
export function parseSshSection(value: unknown, device: FixtureDevice, usedPorts: number[], check: FieldChecker): FixtureSsh | null {
  const object = check.object(value, 'ssh');
  if (!object) return null;
  check.knownFields(object, 'ssh', SSH_FIELDS);
  const port = has(object, 'port') ? (check.integer(object.port, 'ssh.port', 1, 65535) ?? 22) : 22;
  if (usedPorts.includes(port)) check.problem('ssh.port', `port ${port} is also an http / https port: a device port speaks one protocol`);
  const commands: Record<string, SimulatedExec> = {};
  if (has(object, 'commands')) for (const [line, entry, at] of entries(object.commands, 'ssh.commands', check)) commands[line] = execOf(entry, at, check);
  const shell: FixtureSsh['shell'] = { banner: '', prompt: `${device.host ?? 'device'}#`, commands: {}, unknownCommand: '{command}: command not found', delayMs: 0 };
  if (has(object, 'shell')) {
    const spec = check.object(object.shell, 'ssh.shell');
    if (spec) {
      check.knownFields(spec, 'ssh.shell', SHELL_FIELDS);
      if (has(spec, 'banner')) shell.banner = text(spec.banner, 'ssh.shell.banner', check);
      if (has(spec, 'prompt')) shell.prompt = check.string(spec.prompt, 'ssh.shell.prompt') ?? shell.prompt;
      if (has(spec, 'unknownCommand')) shell.unknownCommand = check.string(spec.unknownCommand, 'ssh.shell.unknownCommand') ?? shell.unknownCommand;
      if (has(spec, 'delayMs')) shell.delayMs = check.integer(spec.delayMs, 'ssh.shell.delayMs', 0, MAX_DELAY_MS) ?? 0;
      if (has(spec, 'commands')) for (const [line, entry, at] of entries(spec.commands, 'ssh.shell.commands', check)) shell.commands[line] = shellCommandOf(entry, at, check);
    }
  }
  const credentials = device.username !== null ? { username: device.username, password: device.password ?? '' } : null;
  return { port, commands, shell, credentials };
}
