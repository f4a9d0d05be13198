// Inventory text → a plain document. YAML and JSON both report where the text is broken
// (line and column), so a typo in a big file is found without bisecting it.
import { LineCounter, parseDocument, type Document } from 'yaml';
import { InventoryError } from '../../contract/errors.js';
import { parseYamlByItems } from './yaml-items.js';
import { INVENTORY_YAML_BOUNDS, isStackOverflowMessage, yamlBoundProblem } from './yaml-bounds.js';

/** The largest inventory text read (a 50,000-device inventory is ~15 MB). */
export const MAX_INVENTORY_CHARS = 64 * 1024 * 1024;

export type InventoryFormat = 'yaml' | 'json';

export interface ParsedText {
  value: unknown;
  /** Line of a field by its path, for messages; undefined when unknown (JSON, or no such node). */
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

/** The format a file name implies; null when its extension is neither. */
export function formatOfFile(file: string): InventoryFormat | null {
  if (/\.ya?ml$/i.test(file)) return 'yaml';
  if (/\.json$/i.test(file)) return 'json';
  return null;
}

export function parseText(text: string, format: InventoryFormat, file: string | null): ParsedText {
  if (text.length > MAX_INVENTORY_CHARS) {
    throw new InventoryError(file, [`the inventory is ${text.length} characters long; an inventory may be at most ${MAX_INVENTORY_CHARS} (64 MiB)`]);
  }
  return format === 'yaml' ? parseYaml(text, file) : parseJson(text, file);
}

function parseYaml(text: string, file: string | null): ParsedText {
  const value = parseYamlByItems(text);
  if (value === null) return parseYamlWhole(text, file);
  // Lines are only wanted for a problem: the whole document is parsed then.
  let whole: ParsedText | null = null;
  return { value, lineOf: (path) => (whole ??= parseYamlWhole(text, file)).lineOf(path) };
}

function parseYamlWhole(text: string, file: string | null): ParsedText {
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new InventoryError(
      file,
      doc.errors.map((e) => {
        const at = lines.linePos(e.pos[0]);
        // The library's message also quotes the line; the location is what the user needs.
        const said = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        const what = isStackOverflowMessage(said) ? `nested too deeply for the parser; an inventory may nest at most ${INVENTORY_YAML_BOUNDS.maxDepth} levels` : said;
        return `line ${at.line}, column ${at.col}: ${what}`;
      }),
    );
  }
  // Before any value is made: aliases, their expansion and nesting are bounded.
  const bound = yamlBoundProblem(doc, lines);
  if (bound) throw new InventoryError(file, [bound]);
  let value: unknown;
  try {
    // The walk above bounds the expansion; the library's own alias check is left as a backstop.
    value = doc.toJS({ maxAliasCount: INVENTORY_YAML_BOUNDS.maxExpandedNodes }) as unknown;
  } catch (error) {
    throw new InventoryError(file, [`cannot read the YAML: ${(error as Error).message}`]);
  }
  return {
    value,
    lineOf(path) {
      // A missing field has no node: point at the nearest parent that has one.
      for (let n = path.length; n > 0; n--) {
        const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
        if (node && typeof node === 'object' && node.range) return lines.linePos(node.range[0]).line;
      }
      return undefined;
    },
  };
}

function parseJson(text: string, file: string | null): ParsedText {
  try {
    return { value: JSON.parse(text) as unknown, lineOf: () => undefined };
  } catch (error) {
    const message = (error as Error).message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
    const at = jsonErrorPosition(text, (error as Error).message);
    throw new InventoryError(file, [`${at ? `line ${at.line}, column ${at.col}: ` : ''}not valid JSON: ${message}`]);
  }
}

/** Where JSON.parse stopped: its "at position N" when it says, else where YAML (a superset) stops. */
function jsonErrorPosition(text: string, message: string): { line: number; col: number } | undefined {
  const lines = new LineCounter();
  const position = /at position (\d+)/.exec(message);
  if (position) {
    parseDocument(text, { lineCounter: lines });
    return lines.linePos(Number(position[1]));
  }
  const doc = parseDocument(text, { lineCounter: lines });
  const first = doc.errors[0];
  return first ? lines.linePos(first.pos[0]) : undefined;
}
