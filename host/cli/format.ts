// Human output of a RunResult: variables and tables as aligned columns, then HTTP
// exchanges, logs and warnings. Colour only on a terminal, and never with NO_COLOR.
import type { BackupResult, HttpExchange, RunResult } from '../run-result.js';

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
}

const plain: Style = { bold: (s) => s, dim: (s) => s, red: (s) => s, green: (s) => s, yellow: (s) => s };
const code = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const ansi: Style = { bold: code(1, 22), dim: code(2, 22), red: code(31, 39), green: code(32, 39), yellow: code(33, 39) };

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return stream.isTTY && !env.NO_COLOR ? ansi : plain;
}

/** Columns padded to their widest cell; long cells are cut so one row stays one line. */
export function alignedTable(header: string[], rows: string[][], maxCell = 60): string[] {
  const cut = (s: string) => {
    const one = s.replace(/\s*\n\s*/g, ' ');
    return one.length > maxCell ? `${one.slice(0, maxCell - 1)}…` : one;
  };
  const cells = [header, ...rows].map((r) => r.map(cut));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd());
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One exchange: its summary line, then (with --verbose) its headers and bodies. */
function exchangeLines(h: HttpExchange, style: Style): string[] {
  // Protocol exchanges (SSH, Telnet, SNMP, WinRM) have no status: "done" when they got their answer.
  const outcome = h.error ? style.red(h.error) : h.method === 'TLS' ? 'certificate read' : h.status === null ? 'done' : String(h.status);
  const timing = h.headersMs !== null && h.headersMs !== h.durationMs ? `${h.headersMs.toFixed(1)}/${h.durationMs.toFixed(1)} ms` : `${h.durationMs.toFixed(1)} ms`;
  const sizes = h.requestBytes ? `${size(h.requestBytes)} → ${size(h.responseBytes)}` : size(h.responseBytes);
  const lines = [`${h.method} ${h.url} → ${outcome} ${style.dim(`(${timing}, ${sizes})`)}`];
  if (h.redirectedTo) lines.push(style.dim(`  ↪ redirected to ${h.redirectedTo}`));
  if (h.error && h.errorMessage) lines.push(style.dim(`  ${h.errorMessage}`));
  if (h.hint) lines.push(style.yellow(`  ${h.hint}`));
  const block = (marker: string, headers: Record<string, string | string[]>, body: string | null) => {
    for (const [name, value] of Object.entries(headers)) {
      for (const one of Array.isArray(value) ? value : [value]) lines.push(style.dim(`  ${marker} ${name}: ${one}`));
    }
    if (body !== null) lines.push(...body.split('\n').map((l) => `  ${marker} ${l}`));
  };
  if (h.request) block('>', h.request.headers, h.request.body);
  if (h.response) block('<', h.response.headers, h.response.body);
  return lines;
}

/** Lines of the running configuration shown by `run`; --json carries all of it. */
export const BACKUP_PREVIEW_LINES = 40;

/** The backup: its label and sizes, then the first lines of the running configuration. */
function backupLines(backup: BackupResult, style: Style): string[] {
  const startup =
    backup.startup === null ? 'none' : backup.startup === backup.running ? `${size(backup.startupBytes ?? 0)}, same as running` : size(backup.startupBytes ?? 0);
  const lines = ['', style.bold(`Backup "${backup.label}"`), `  running: ${size(backup.runningBytes)}   startup: ${startup}`];
  const running = backup.running.split('\n');
  if (running.length && running[running.length - 1] === '') running.pop();
  lines.push(...running.slice(0, BACKUP_PREVIEW_LINES).map((l) => `  ${style.dim('|')} ${l.replace(/\r$/, '')}`));
  if (running.length > BACKUP_PREVIEW_LINES) lines.push(style.dim(`  … ${running.length - BACKUP_PREVIEW_LINES} more lines (--json has the whole configuration)`));
  return lines;
}

export function formatResult(result: RunResult, title: string, style: Style = plain): string {
  const out: string[] = [];
  const indent = (lines: string[]) => lines.map((l) => `  ${l}`);
  const section = (name: string, count: number) => out.push('', style.bold(`${name} (${count})`));

  out.push(style.bold(title));
  if (result.status === 'success') {
    out.push(style.green(`✔ success in ${result.durationMs} ms`));
  } else {
    out.push(style.red(`✖ failure: ${result.errorType} in ${result.durationMs} ms`));
    if (result.message) out.push(...result.message.split('\n').map((l) => `  ${l}`));
  }

  if (result.variables.length) {
    section('Variables', result.variables.length);
    out.push(...indent(alignedTable(['UID', 'LABEL', 'VALUE', 'UNIT', 'TYPE'], result.variables.map((v) => [v.uid, v.label, v.value ?? '(null)', v.unit ?? '', v.valueType]))));
  }
  for (const table of result.tables) {
    section(`Table "${table.label}"`, table.rows.length);
    const header = ['Id', ...table.columnHeaders.map((h) => (h.unit ? `${h.label} (${h.unit})` : h.label))];
    out.push(...indent(alignedTable(header, table.rows.map((r) => r.map((c) => c ?? '(null)')))));
  }
  if (result.backup) out.push(...backupLines(result.backup, style));
  if (result.http.length) {
    section('HTTP', result.http.length);
    for (const h of result.http) out.push(...indent(exchangeLines(h, style)));
  }
  if (result.logs.length) {
    section('Logs', result.logs.length);
    for (const log of result.logs) {
      const tag = `[${log.level}]`.padEnd(7);
      const colour = log.level === 'error' ? style.red : log.level === 'warn' ? style.yellow : (s: string) => s;
      out.push(...log.message.split('\n').map((l, i) => `  ${colour(i === 0 ? tag : ' '.repeat(7))} ${l}`));
    }
  }
  if (result.warnings.length) {
    section('Warnings', result.warnings.length);
    out.push(...result.warnings.map((w) => `  ${style.yellow('!')} ${w}`));
  }
  return out.join('\n');
}

/** The --json document: the documented fields first, then driverbox's extras. */
export function jsonResult(result: RunResult): string {
  return JSON.stringify({
    status: result.status,
    errorType: result.errorType,
    message: result.message,
    variables: result.variables.map(({ uid, label, value, unit, valueType }) => ({ uid, label, value, unit, valueType })),
    tables: result.tables,
    logs: result.logs,
    durationMs: result.durationMs,
    action: result.action,
    warnings: result.warnings,
    http: result.http,
    limitExceeded: result.limitExceeded,
    ...(result.backup ? { backup: result.backup } : {}),
  });
}
