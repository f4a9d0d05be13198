// The "ssh" section of a fixture: a simulated SSH server with exec commands and an interactive
// shell. docs/reference/simulator/ssh.md describes every field.

/** Text as one string, or as a list of lines (joined with "\n"). */
export type TextSpec = string | string[];

export interface SshExecSpec {
  stdout?: TextSpec;
  stderr?: TextSpec;
  /** Exit status (default 0). */
  exitCode?: number;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface SshShellCommandSpec {
  output?: TextSpec;
  /** The prompt from this command on (e.g. "switch#" after "enable"). */
  prompt?: string;
  delayMs?: number;
}

export interface SshSpec {
  /** Device port the driver dials (default 22). */
  port?: number;
  /** Exec commands (sendSSHCommand), by exact command line: stdout text, or an object. */
  commands?: Record<string, TextSpec | SshExecSpec>;
  /** The interactive shell (sendSSHCommands). */
  shell?: {
    /** Printed once the shell opens, before the first prompt. */
    banner?: TextSpec;
    /** Default "<device.host or device>#". */
    prompt?: string;
    /** By exact command line (trimmed): output text, or an object. */
    commands?: Record<string, TextSpec | SshShellCommandSpec>;
    /** Answer to a command the shell does not know; "{command}" stands for it. */
    unknownCommand?: string;
    /** Wait this long before the banner and first prompt (a slow login). */
    delayMs?: number;
  };
}

export interface SimulatedExec {
  stdout: string;
  stderr: string;
  exitCode: number;
  delayMs: number;
}

export interface SimulatedShellCommand {
  output: string;
  prompt: string | null;
  delayMs: number;
}

/** A validated "ssh" section, as the SSH server runs it. */
export interface FixtureSsh {
  port: number;
  commands: Record<string, SimulatedExec>;
  shell: {
    banner: string;
    prompt: string;
    commands: Record<string, SimulatedShellCommand>;
    unknownCommand: string;
    delayMs: number;
  };
  /** The credentials a client must log in with (the fixture's device credentials); null: any. */
  credentials: { username: string; password: string } | null;
}
