// The CLI's input and output as every command takes it: its two text streams, working folder and
// environment. A module of its own so that commands and main.ts both import it, not each other.

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdoutStream: { isTTY?: boolean };
}

/** The real process's streams, folder and environment. */
export const processIo = (): CliIo => ({
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  cwd: process.cwd(),
  env: process.env,
  stdoutStream: process.stdout,
});
