// Runs the CLI's main() in this process with captured output, for tests of usage errors and
// short commands (long-running ones are spawned as the real bin instead).
import { tmpdir } from 'node:os';
import { main, type CliIo } from '../../host/cli/main.js';

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
