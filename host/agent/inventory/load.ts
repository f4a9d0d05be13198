// Reading an inventory: the file (format by extension) or text, parsed, validated, and every
// problem thrown at once as an InventoryError.
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InventoryError } from '../../contract/errors.js';
import { formatOfFile, MAX_INVENTORY_CHARS, parseText, type InventoryFormat, type ParsedText } from './parse-text.js';
import type { Inventory } from './types.js';
import { validateInventory } from './validate.js';

export interface ParseInventoryOptions {
  format: InventoryFormat;
  /** The file the text came from: named in errors, and driver paths are relative to its folder (else to the working directory). */
  file?: string | null;
  /** Where `{ env: NAME }` references are read; default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

export function parseInventory(text: string, options: ParseInventoryOptions): Inventory {
  const file = options.file ? resolve(options.file) : null;
  const parsed = parseText(text, options.format, file);
  const { inventory, problems } = validateInventory(parsed.value, {
    baseDir: file ? dirname(file) : process.cwd(),
    env: options.env ?? process.env,
  });
  if (problems.length > 0) throw new InventoryError(file, problems.map((p) => withLine(p, parsed)));
  return { ...inventory, file };
}

export function loadInventory(file: string, options: { env?: ParseInventoryOptions['env'] } = {}): Inventory {
  const format = formatOfFile(file);
  if (!format) throw new InventoryError(file, ['the file name must end in .yaml, .yml or .json (that is how its format is told)']);
  let text: string;
  try {
    // A file too big is refused before it is read (a character is at least one byte).
    const bytes = statSync(file).size;
    if (bytes > 4 * MAX_INVENTORY_CHARS) {
      throw new InventoryError(file, [`the file is ${bytes} bytes; an inventory may be at most ${MAX_INVENTORY_CHARS} characters (64 MiB)`]);
    }
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof InventoryError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InventoryError(file, [code === 'ENOENT' ? 'the file does not exist' : `cannot read it: ${(error as Error).message}`]);
  }
  return parseInventory(text, { format, file, env: options.env });
}

/** `devices[2].ip: …` → `line 14: devices[2].ip: …` when the text says where that field is. */
function withLine(problem: string, parsed: ParsedText): string {
  const path = fieldPathSegments(problem);
  const line = path && path.length > 0 ? parsed.lineOf(path) : undefined;
  return line === undefined ? problem : `line ${line}: ${problem}`;
}

/** The segments of the field path a problem starts with (as fieldPath writes them). */
function fieldPathSegments(problem: string): Array<string | number> | null {
  const segments: Array<string | number> = [];
  const token = /^(?:\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;
  let rest = problem;
  for (let match = token.exec(rest); match; match = token.exec(rest)) {
    segments.push(match[1] ?? (match[2] !== undefined ? Number(match[2]) : (JSON.parse(match[3]!) as string)));
    rest = rest.slice(match[0].length);
  }
  return rest.startsWith(': ') ? segments : null;
}
