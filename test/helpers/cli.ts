// Runs the CLI's main() in this process with captured output, for tests of usage errors and
// short commands (long-running ones are spawned as the real bin instead).
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../host/cli/main.js';
import { type CliIo } from '../../host/cli/io.js';

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliOutcome> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: options.cwd ?? tmpdir(), env: options.env ?? {}, stdoutStream: {} };
  const code = await main(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const bin = path.resolve(import.meta.dirname, '../../bin/driverbox.js');

/** Runs the real bin/driverbox.js as a child process, with only PATH, NO_COLOR and `env` set. */
export async function runBin(argv: string[], options: { env?: Record<string, string>; cwd: string }): Promise<CliOutcome> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [bin, ...argv], { cwd: options.cwd, env: { PATH: process.env.PATH, NO_COLOR: '1', ...options.env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
