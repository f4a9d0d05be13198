// The "winrm" section of a fixture (docs/reference/simulator/winrm.md): as written, and as run.

export interface WinrmCommandSpec {
  /** The PowerShell command the driver passes (what is inside powershell.exe "…"), exactly… */
  command?: string;
  /** …or any command containing this text. */
  contains?: string;
  stdout?: string;
  stderr?: string;
  /** Default 0. */
  exitCode?: number;
  /** Time the command runs before its output is ready, ms (a Receive waits for it). */
  delayMs?: number;
  /** Answer the Command request with this HTTP status and body instead (a WS-Management fault by default). */
  status?: number;
  body?: string;
}

export interface WinrmSpec {
  /** The device port of plain HTTP (default 5985). */
  port?: number;
  /** Serve WinRM over HTTPS too (self-signed certificate), on this device port (true: 5986). */
  https?: boolean | number;
  /** Authentication accepted: "basic", "ntlm" or "both" (default). */
  auth?: 'basic' | 'ntlm' | 'both';
  /** Credentials: "device" (default) or a pair; a user "DOMAIN\\name" is the NTLM account. */
  credentials?: 'device' | { username: string; password: string };
  commands: WinrmCommandSpec[];
}

export interface WinrmCommand {
  command: string | null;
  contains: string | null;
  stdout: string;
  stderr: string;
  exitCode: number;
  delayMs: number;
  status: number | null;
  body: string | null;
}

export interface WinrmFixture {
  port: number;
  /** The device port of HTTPS; null when not served. */
  httpsPort: number | null;
  auth: 'basic' | 'ntlm' | 'both';
  credentials: { username: string; password: string };
  commands: WinrmCommand[];
}
