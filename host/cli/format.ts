// Human output of a RunResult: variables and tables as aligned columns, then HTTP
// exchanges, logs and warnings. Colour only on a terminal, and never with NO_COLOR. Every text
// of the result came from the device or the driver: each goes through terminalText, so none of
// it can drive the terminal (the --json document is exact instead).
import type { BackupResult, HttpExchange, RunResult } from '../contract/run-result.js';
import { terminalText } from '../terminal-text.js';

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

/** Is output to this stream styled (a terminal, and no NO_COLOR)? */
export function isStyled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  return isStyled(stream, env) ? ansi : plain;
}

/** Device or driver text shown in a line of its own layout (a log line, a body line): tabs kept. */
const shown = (s: string) => terminalText(s);
/** Device or driver text inside a line we lay out (a name, a url): on one line. */
const inline = (s: string) => terminalText(s, { oneLine: true });

/**
 * Columns padded to their widest cell; long cells are cut so one row stays one line. Cells are
 * escaped (terminalText) before they are measured: the callers' cells are device, driver or store text.
 */
export function alignedTable(header: string[], rows: string[][], maxCell = 60): string[] {
  const cut = (s: string) => {
    const one = inline(s.replace(/\s*\n\s*/g, ' '));
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
  const outcome = h.error ? style.red(inline(h.error)) : h.method === 'TLS' ? 'certificate read' : h.status === null ? 'done' : String(h.status);
  const timing = h.headersMs !== null && h.headersMs !== h.durationMs ? `${h.headersMs.toFixed(1)}/${h.durationMs.toFixed(1)} ms` : `${h.durationMs.toFixed(1)} ms`;
  const sizes = h.requestBytes ? `${size(h.requestBytes)} → ${size(h.responseBytes)}` : size(h.responseBytes);
  const lines = [`${inline(h.method)} ${inline(h.url)} → ${outcome} ${style.dim(`(${timing}, ${sizes})`)}`];
  if (h.redirectedTo) lines.push(style.dim(`  ↪ redirected to ${inline(h.redirectedTo)}`));
  if (h.error && h.errorMessage) lines.push(style.dim(`  ${inline(h.errorMessage)}`));
  if (h.hint) lines.push(style.yellow(`  ${inline(h.hint)}`));
  const block = (marker: string, headers: Record<string, string | string[]>, body: string | null) => {
    for (const [name, value] of Object.entries(headers)) {
      for (const one of Array.isArray(value) ? value : [value]) lines.push(style.dim(`  ${marker} ${inline(name)}: ${inline(one)}`));
    }
    if (body !== null) lines.push(...body.split('\n').map((l) => `  ${marker} ${shown(l)}`));
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
  const lines = ['', style.bold(`Backup "${inline(backup.label)}"`), `  running: ${size(backup.runningBytes)}   startup: ${startup}`];
  const running = backup.running.split('\n');
  if (running.length && running[running.length - 1] === '') running.pop();
  lines.push(...running.slice(0, BACKUP_PREVIEW_LINES).map((l) => `  ${style.dim('|')} ${shown(l.replace(/\r$/, ''))}`));
  if (running.length > BACKUP_PREVIEW_LINES) lines.push(style.dim(`  … ${running.length - BACKUP_PREVIEW_LINES} more lines (--json has the whole configuration)`));
  return lines;
}

export function formatResult(result: RunResult, title: string, style: Style = plain): string {
  const out: string[] = [];
  const indent = (lines: string[]) => lines.map((l) => `  ${l}`);
  const section = (name: string, count: number) => out.push('', style.bold(`${name} (${count})`));

  out.push(style.bold(inline(title)));
  if (result.status === 'success') {
    out.push(style.green(`✔ success in ${result.durationMs} ms`));
  } else {
    out.push(style.red(`✖ failure: ${inline(String(result.errorType))} in ${result.durationMs} ms`));
    if (result.message) out.push(...result.message.split('\n').map((l) => `  ${shown(l)}`));
  }

  if (result.variables.length) {
    section('Variables', result.variables.length);
    out.push(...indent(alignedTable(['UID', 'LABEL', 'VALUE', 'UNIT', 'TYPE'], result.variables.map((v) => [v.uid, v.label, v.value ?? '(null)', v.unit ?? '', v.valueType]))));
  }
  for (const table of result.tables) {
    section(`Table "${inline(table.label)}"`, table.rows.length);
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
      out.push(...log.message.split('\n').map((l, i) => `  ${colour(i === 0 ? tag : ' '.repeat(7))} ${shown(l)}`));
    }
  }
  if (result.warnings.length) {
    section('Warnings', result.warnings.length);
    out.push(...result.warnings.map((w) => `  ${style.yellow('!')} ${shown(w)}`));
  }
  return out.join('\n');
}

/** The --json document: the documented fields first, then driverbox's extras. Exact: JSON escapes controls (and the CLI's output boundary C1 and bidi characters, as JSON escapes too). */
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
