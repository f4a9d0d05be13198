// A large inventory's YAML parsed item by item: its top-level entries, and each item of a
// top-level block sequence (devices, associations) on its own. The yaml library's document for a
// whole file keeps ~3 KB of nodes per line and makes ~10 KB of garbage per line (50,000 devices:
// 500 MB, 7.5 s); per item, what it makes dies young and the peak stays that of one item.
//
// Only text a split cannot change the meaning of is split: a mapping of top-level keys at column
// 0, each with a scalar or a block sequence; no anchors, aliases, tags, directives or several
// documents. Anything else (or an item the library refuses) answers null, and the caller parses
// the whole text, which also gives the errors their line numbers.
import { LineCounter, parseDocument, type Document } from 'yaml';
import { yamlBoundProblem } from './yaml-bounds.js';

/** Anchors, aliases, tags (even inside quotes: such text is parsed whole, which is only slower). */
const UNSPLITTABLE = /(?:^|[\s[{,])[&*!]\S|^(?:%|---|\.\.\.)|\t/m;
const TOP_KEY = /^([A-Za-z_][\w-]*)[ ]*:(?:[ ]+(.*))?$/;
const ITEM = /^([ ]*)-(?:[ ]|$)/;

/** The value of the whole text, or null when it must be parsed whole. */
export function parseYamlByItems(text: string): Record<string, unknown> | null {
  if (UNSPLITTABLE.test(text)) return null;
  const lines = text.split(/\r?\n/);
  const result: Record<string, unknown> = {};
  let at = 0;
  while (at < lines.length) {
    const line = lines[at]!;
    if (isBlankOrComment(line)) {
      at++;
      continue;
    }
    const key = TOP_KEY.exec(line);
    if (!key || Object.hasOwn(result, key[1]!)) return null;
    // The entry's block: every line up to the next one at column 0 that is not a sequence item.
    let end = at + 1;
    while (end < lines.length && (isBlankOrComment(lines[end]!) || /^[ -]/.test(lines[end]!))) end++;
    const inline = key[2] !== undefined && key[2].trim() !== '' && !key[2].startsWith('#');
    const value = inline ? parseOne(lines.slice(at, end).join('\n'), key[1]!) : parseSequence(lines, at + 1, end);
    if (value === NOT_SPLIT) return null;
    result[key[1]!] = value;
    at = end;
  }
  return result;
}

const NOT_SPLIT = Symbol('not split');

/**
 * A piece's value, or NOT_SPLIT when the library refuses to make it: the whole-document parse
 * then reports the problem (with its line), bounds included (yaml-bounds.ts). The pieces carry
 * no aliases (UNSPLITTABLE); none is resolved here, should one slip through.
 */
function toValue(doc: Document): unknown {
  if (yamlBoundProblem(doc, new LineCounter()) !== null) return NOT_SPLIT;
  try {
    return doc.toJS({ maxAliasCount: 0 });
  } catch {
    return NOT_SPLIT;
  }
}

function isBlankOrComment(line: string): boolean {
  return /^[ ]*(?:#.*)?$/.test(line);
}

/** A small entry (`version: 1`) parsed as the one-key mapping it is. */
function parseOne(text: string, key: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) return NOT_SPLIT;
  const value = toValue(doc) as Record<string, unknown> | null;
  return value !== null && typeof value === 'object' && Object.keys(value).length === 1 && Object.hasOwn(value, key) ? value[key] : NOT_SPLIT;
}

/** Lines [from, to) as a block sequence, each item parsed alone; an empty block is null, as YAML has it. */
function parseSequence(lines: string[], from: number, to: number): unknown {
  let indent: number | null = null;
  const items: unknown[] = [];
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return true;
    const value = parseItem(lines.slice(start, end).join('\n'));
    if (value === NOT_SPLIT) return false;
    items.push(value);
    return true;
  };
  for (let i = from; i < to; i++) {
    const line = lines[i]!;
    if (isBlankOrComment(line)) continue;
    const item = ITEM.exec(line);
    const depth = /^[ ]*/.exec(line)![0].length;
    indent ??= item ? depth : -1;
    if (indent < 0 || depth < indent) return NOT_SPLIT; // not a block sequence
    if (depth === indent) {
      if (!item) return NOT_SPLIT;
      if (!flush(i)) return NOT_SPLIT;
      start = i;
    }
  }
  if (!flush(to)) return NOT_SPLIT;
  return indent === null ? null : items;
}

/** One item's lines (`- …` and what is indented under it): a sequence of one. */
function parseItem(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) return NOT_SPLIT;
  const value = toValue(doc);
  return Array.isArray(value) && value.length === 1 ? value[0] : NOT_SPLIT;
}
