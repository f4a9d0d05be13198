// Lists a driver's entry points (validate, get_status, backup, custom_N) with the @label and
// @documentation of the comment block that precedes each, as the collector's UI shows them.
import { segments } from './scan.js';

/** backup() is the platform's configuration-management entry point (D.createBackup). */
export const ENTRY_POINT = /^(validate|get_status|backup|custom_[1-9]\d*)$/;

export interface EntryPoint {
  name: string;
  label: string | null;
  documentation: string | null;
  remoteProcedure: boolean;
  line: number;
}

function tag(comment: string, name: string): string | null {
  const lines = comment
    .replace(/^\/\*+|\*+\/$/g, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\*?\s?/, ''));
  const at = lines.findIndex((l) => l.startsWith(`@${name}`));
  if (at < 0) return null;
  const parts = [lines[at].slice(name.length + 1).trim()];
  for (const l of lines.slice(at + 1)) {
    if (l.trim().startsWith('@')) break;
    parts.push(l.trim());
  }
  const text = parts.join(' ').replace(/\s+/g, ' ').trim();
  return text || null;
}

/**
 * Line numbers of increasing offsets, counting each newline once: finding the line from the
 * start of the source for every entry point made a driver with thousands of them quadratic.
 */
function lineCounter(source: string): (offset: number) => number {
  let line = 1;
  let scanned = 0;
  return (offset) => {
    for (; scanned < offset; scanned++) if (source.charCodeAt(scanned) === 10) line++;
    return line;
  };
}

export function listEntryPoints(source: string): EntryPoint[] {
  const found: EntryPoint[] = [];
  const lineOf = lineCounter(source);
  let depth = 0;
  let lastComment: string | null = null;
  for (const segment of segments(source)) {
    if (segment.kind === 'comment') {
      if (segment.text.startsWith('/*')) lastComment = segment.text;
      continue;
    }
    if (segment.kind === 'string') {
      lastComment = null;
      continue;
    }
    const declaration = /(?:\bfunction\s+([\w$]+)\s*\(|\b(?:var|let|const)\s+([\w$]+)\s*=\s*(?:async\s+)?function\b)/g;
    let cursor = 0;
    for (let m = declaration.exec(segment.text); m; m = declaration.exec(segment.text)) {
      const before = segment.text.slice(cursor, m.index);
      depth += count(before, '{') - count(before, '}');
      const between = before.trim();
      const name = m[1] ?? m[2];
      if (depth === 0 && ENTRY_POINT.test(name)) {
        const comment = between === '' && cursor === 0 ? lastComment : null;
        found.push({
          name,
          label: comment ? tag(comment, 'label') : null,
          documentation: comment ? tag(comment, 'documentation') : null,
          remoteProcedure: comment ? /@remote_procedure\b/.test(comment) : false,
          line: lineOf(segment.offset + m.index),
        });
      }
      cursor = m.index;
    }
    const rest = segment.text.slice(cursor);
    depth += count(rest, '{') - count(rest, '}');
    lastComment = segment.text.trim() === '' ? lastComment : null;
  }
  return found.sort((a, b) => order(a.name) - order(b.name));
}

function order(name: string): number {
  if (name === 'validate') return 0;
  if (name === 'get_status') return 1;
  if (name === 'backup') return 2;
  return 2 + Number(name.slice('custom_'.length));
}

function count(text: string, ch: string): number {
  let n = 0;
  for (const c of text) if (c === ch) n++;
  return n;
}
