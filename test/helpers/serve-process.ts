// `driverbox serve` as the real bin in a process of its own: started on a free port, ready once
// its banner is out, stopped with SIGTERM.
import { spawn } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve('bin/driverbox.js');

export interface ServeProcess {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The launcher's pid (bin/driverbox.js re-runs itself with --no-node-snapshot: serve is its child). */
  pid: number;
  /** What it printed so far. */
  output(): string;
  /** What it printed to stderr so far. */
  errors(): string;
  /** SIGTERM; resolves with its exit code and all it printed. */
  stop(): Promise<{ code: number | null; stdout: string }>;
}

/** Starts `driverbox serve --port 0 …args` with only PATH and `env`, and waits for its whole banner. */
export async function startServe(args: string[], env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /Monitoring API on (http:\/\/127\.0\.0\.1:\d+)\/public-api\/v1/.exec(stdout);
      if (m && stdout.includes('Ctrl-C to stop.')) resolve(m[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const stop = () =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      proc.on('exit', (code) => resolve({ code, stdout }));
      proc.kill('SIGTERM');
    });
  return { url, stop, pid: proc.pid!, output: () => stdout, errors: () => stderr };
}
