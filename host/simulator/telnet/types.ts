// The "telnet" section of a fixture (docs/reference/simulator/telnet.md): as written, and as run.

export interface TelnetCommandSpec {
  /** The line the driver sends (without its line end). */
  command: string;
  /** What the device prints (a lone \n is sent as \r\n). */
  output?: string;
  /** Wait this long before printing it, ms. */
  delayMs?: number;
  /** Close the connection after the output (as "exit" does). */
  close?: boolean;
}

export interface TelnetSpec {
  /** The device port (default 23). */
  port?: number;
  /** Option negotiation sent at connect, as hex bytes; true for the usual (default), false for none. */
  negotiation?: boolean | string;
  /** Text sent at connect, before the first prompt. */
  banner?: string;
  /** The login prompt; null for a device without login (default "login: "). */
  loginPrompt?: string | null;
  passwordPrompt?: string;
  /** Default "# ". An empty string prints no prompt (a line protocol such as Redis). */
  shellPrompt?: string;
  /** Login credentials: "device" for the fixture's device credentials (default), or a pair. */
  credentials?: 'device' | { username: string; password: string };
  /** Echo each command line back (default true). */
  echo?: boolean;
  /** Command → output, or a list of commands with more fields. */
  commands?: Record<string, string> | TelnetCommandSpec[];
  /** Printed for any other command; {command} is replaced (default "% Unknown command: {command}"). */
  unknownCommand?: string;
}

export interface TelnetFixture {
  port: number;
  negotiation: Buffer;
  banner: string;
  loginPrompt: string | null;
  passwordPrompt: string;
  shellPrompt: string;
  credentials: { username: string; password: string } | null;
  echo: boolean;
  commands: Map<string, { output: string; delayMs: number; close: boolean }>;
  unknownCommand: string;
}
