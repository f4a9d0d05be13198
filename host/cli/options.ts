// Turns CLI flag values into typed run inputs, with a specific message for each mistake.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage-error.js';

export function parseIntegerFlag(name: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer >= ${min} (got "${value}")`);
  return Number(value);
}

/** `80=8080,443=8443` → { 80: 8080, 443: 8443 } */
export function parsePortMap(value: string | undefined): Record<number, number> | undefined {
  if (value === undefined) return undefined;
  const map: Record<number, number> = {};
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(\d{1,5})=(\d{1,5})$/.exec(pair);
    const from = Number(match?.[1]);
    const to = Number(match?.[2]);
    if (!match || from < 1 || from > 65535 || to < 1 || to > 65535) {
      throw new UsageError(`--port-map expects FROM=TO pairs of ports separated by commas, e.g. 80=8080,443=8443 (bad pair "${pair}")`);
    }
    map[from] = to;
  }
  return map;
}

/** Driver parameters from a JSON file: an object of name → value, or a list of { name, value }. */
export function readParams(file: string | undefined, cwd: string): Record<string, unknown> | undefined {
  if (file === undefined) return undefined;
  const full = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new UsageError(`--params: cannot read ${full}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--params: ${full} is not valid JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(data)) {
    const out: Record<string, unknown> = {};
    for (const item of data) {
      if (!item || typeof item !== 'object' || typeof (item as { name?: unknown }).name !== 'string') {
        throw new UsageError(`--params: ${full} is a list, so each entry must be { "name": …, "value": … }`);
      }
      out[(item as { name: string }).name] = (item as { value?: unknown }).value;
    }
    return out;
  }
  if (!data || typeof data !== 'object') throw new UsageError(`--params: ${full} must hold a JSON object of parameter name → value`);
  return data as Record<string, unknown>;
}
