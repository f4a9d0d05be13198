// Issue 19, item 6: through the real CLI, a misspelt flag is answered in our words with the
// closest flag; every command's help has the same sections and lists every flag the command
// takes; `driverbox help <command>` is `<command> --help`; the version flags are in the help.
// The messages go through the real bin; the per-command sweeps call main() as the bin does.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { actionsFlags } from '../../host/cli/commands/actions.js';
import { agentFlags } from '../../host/cli/commands/agent.js';
import { demoFlags } from '../../host/cli/commands/demo.js';
import { driversAddFlags, driversListFlags } from '../../host/cli/commands/drivers.js';
import { initFlags } from '../../host/cli/commands/init.js';
import { runFlags } from '../../host/cli/commands/run.js';
import { serveFlags } from '../../host/cli/commands/serve.js';
import { simulateFlags } from '../../host/cli/commands/simulate.js';
import type { FlagSpecs } from '../../host/cli/flags.js';
import { boundedEditDistance, closestNames, MAX_WORD_CHARS } from '../../host/closest-name.js';
import { runCli } from '../helpers/cli.js';

const exec = promisify(execFile);
const bin = path.resolve('bin/driverbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-flags-'));
writeFileSync(path.join(work, 'x.js'), 'function get_status() { D.success(); }');

async function cli(args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1', DRIVERBOX_DATA_DIR: work } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const COMMANDS: Array<[string, FlagSpecs]> = [
  ['run', runFlags],
  ['actions', actionsFlags],
  ['demo', demoFlags],
  ['simulate', simulateFlags],
  ['init', initFlags],
  ['serve', serveFlags],
  ['drivers', { ...driversAddFlags, ...driversListFlags }],
  ['agent', agentFlags],
];

describe('unknown flags', () => {
  it.each([
    [['run', 'x.js', '--pasword', 'secret'], 'driverbox run: unknown option --pasword (did you mean --password?)'],
    [['run', 'x.js', '--devcie-ip', '10.0.0.7'], 'driverbox run: unknown option --devcie-ip (did you mean --device-ip?)'],
    [['run', 'x.js', '--device', '10.0.0.7'], 'driverbox run: unknown option --device (did you mean --device-ip or --device-host?)'],
    [['run', 'x.js', '--frobnicate'], 'driverbox run: unknown option --frobnicate'],
    [['run', 'x.js', '-q'], 'driverbox run: unknown option -q'],
    [['run', 'x.js', '--timeout'], 'driverbox run: --timeout needs a value: --timeout <value>'],
    [['run', 'x.js', '--json=yes'], 'driverbox run: --json takes no value (got --json=yes)'],
    [['run', 'x.js', '--password', '--json'], 'driverbox run: --password needs a value, and "--json" looks like an option; a value that starts with "-" is written --password=--json'],
    [['serve', '--api-kye', 'k'], 'driverbox serve: unknown option --api-kye (did you mean --api-key?)'],
    [['drivers', 'list', '--jsno'], 'driverbox drivers: unknown option --jsno (did you mean --json?)'],
    [['agent', '--inventroy', 'i.yaml'], 'driverbox agent: unknown option --inventroy (did you mean --inventory?)'],
    [['--verison'], 'driverbox: unknown option --verison (did you mean --version?)'],
    [['rnu'], 'driverbox: unknown command "rnu" (did you mean run?)'],
  ])('%j → exit 2: %s', async (args, message) => {
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(message);
  });

  it.each(COMMANDS.map(([name]) => name))('%s: a misspelt --help is answered with --help', async (name) => {
    const args = name === 'drivers' ? ['drivers', 'add', 'x.js', '--hlep'] : [name, '--hlep'];
    const { code, stderr } = await runCli(args, { cwd: work });
    expect(code).toBe(2);
    expect(stderr).toContain(`unknown option --hlep (did you mean --help?)\nRun \`npx driverbox ${name} --help\` for usage.`);
  });
});

describe('help', () => {
  it('`driverbox help run` prints run\'s help, as `run --help` does', async () => {
    const viaHelp = await cli(['help', 'run']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toMatch(/^Usage: driverbox run <driver\.js> \[options\]\n/);
    expect(viaHelp).toEqual(await cli(['run', '--help']));
  });

  it('lists -v, -V and --version, which print the version', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const help = await cli(['--help']);
    expect(help.stdout).toMatch(/^ {2}-v, -V, --version +print driverbox's version$/m);
    expect(help.stdout).toMatch(/^ {2}help <command> /m);
    for (const flag of ['-v', '-V', '--version']) expect((await cli([flag])).stdout.trim()).toBe(version);
  });

  it.each(COMMANDS)('%s: `help <command>` is `<command> --help`, with the usual sections and every flag', async (name, flags) => {
    const viaFlag = await runCli([name, '--help']);
    const viaHelp = await runCli(['help', name]);
    expect(viaFlag.code).toBe(0);
    expect(viaHelp).toEqual(viaFlag);
    const text = viaFlag.stdout;
    expect(text).toMatch(new RegExp(`^Usage: driverbox ${name} .*\\[options\\]\\n`));
    expect(text).toContain('\nOptions:\n');
    expect(text).toMatch(/^ {2}-h, --help +this help$/m);
    expect(text).toMatch(/\n\nExit code: .*2 usage/);
    for (const [flag, spec] of Object.entries(flags)) {
      expect(text, `--${flag}`).toContain(`--${flag}`);
      if (spec.short) expect(text, `-${spec.short}`).toContain(`-${spec.short}, --${flag}`);
    }
  });
});

describe('closest names: a bounded edit distance', () => {
  /** The plain O(n·m) optimal string alignment distance, to check the banded one against. */
  function plainDistance(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
    return d[a.length]![b.length]!;
  }

  it('agrees with the plain distance up to its limit, and answers limit + 1 past it', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const word = () => Array.from({ length: next() % 9 }, () => 'abc'[next() % 3]).join('');
    for (let n = 0; n < 3000; n++) {
      const [a, b, limit] = [word(), word(), next() % 4];
      expect(boundedEditDistance(a, b, limit), `${a} ${b} ${limit}`).toBe(Math.min(plainDistance(a, b), limit + 1));
    }
  });

  it('suggests among siblings by distance, and nothing for a word too long to be a name', () => {
    expect(closestNames('sucess', ['success', 'failure', 'createVariable'])).toEqual(['success']);
    expect(closestNames('my-nass', ['my-nas', 'my-router'])).toEqual(['my-nas']);
    expect(closestNames('x'.repeat(MAX_WORD_CHARS + 1), ['x'.repeat(MAX_WORD_CHARS)])).toEqual([]);
    expect(closestNames('zzzzzz', ['success'])).toEqual([]);
  });
});
