// Turns CLI flag values into typed run inputs, with a specific message for each mistake.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { locateJsonError } from './json-error.js';
import { UsageError } from '../contract/errors.js';

export function parseIntegerFlag(name: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer >= ${min} (got "${value}")`);
  return Number(value);
}

/** `80=8080,443=8443` → { 80: 8080, 443: 8443 } */
export function parsePortMap(value: string | undefined, flag = '--port-map'): Record<number, number> | undefined {
  if (value === undefined) return undefined;
  const map: Record<number, number> = {};
  for (const pair of value.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(\d{1,5})=(\d{1,5})$/.exec(pair);
    const from = Number(match?.[1]);
    const to = Number(match?.[2]);
    if (!match || from < 1 || from > 65535 || to < 1 || to > 65535) {
      throw new UsageError(`${flag} expects FROM=TO pairs of ports separated by commas, e.g. 80=8080,443=8443 (bad pair "${pair}")`);
    }
    map[from] = to;
  }
  return map;
}

/**
 * `--resolve name=ip[,port=port…]`, repeatable: `api.example=127.0.0.1,443=8443` → { 'api.example':
 * { ip: '127.0.0.1', portMap: { 443: 8443 } } }. The host checks the name and address.
 */
export function parseResolve(values: string[] | undefined): Record<string, { ip: string; portMap: Record<number, number> }> | undefined {
  if (!values?.length) return undefined;
  const resolve: Record<string, { ip: string; portMap: Record<number, number> }> = {};
  for (const value of values) {
    const [mapping = '', ...ports] = value.split(',');
    const eq = mapping.indexOf('=');
    if (eq <= 0 || eq === mapping.length - 1) {
      throw new UsageError(`--resolve expects NAME=IP, optionally followed by port pairs: api.example=127.0.0.1,443=8443 (got "${value}")`);
    }
    const portMap = ports.length ? parsePortMap(ports.join(','), '--resolve') : {};
    resolve[mapping.slice(0, eq)] = { ip: mapping.slice(eq + 1), portMap: portMap ?? {} };
  }
  return resolve;
}

/**
 * `run --external-hosts a,b`: hosts a redirect may lead to. The driver's own D.createExternalDevice
 * stays free ("*": the CLI runs the author's own driver); the names widen only where redirects go.
 */
export function parseExternalHosts(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const hosts = value.split(',').map((h) => h.trim()).filter(Boolean);
  const bad = hosts.find((h) => h !== '*' && !/^(\*\.)?[a-z0-9_.:-]+$/i.test(h));
  if (hosts.length === 0 || bad !== undefined) {
    throw new UsageError(`--external-hosts expects host names or IPs separated by commas, *.example.com for any name under it (${bad === undefined ? 'got none' : `bad name "${bad}"`})`);
  }
  return ['*', ...hosts];
}

/** A file a flag names, relative to the working directory: its path and text, or a usage error. */
function readFlagFile(flag: string, file: string, cwd: string): { full: string; text: string } {
  const full = path.resolve(cwd, file);
  try {
    return { full, text: readFileSync(full, 'utf8') };
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${full}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

/** PEM files of extra CAs to trust (`--ca`, repeatable). */
export function readCaFiles(files: string[] | undefined, cwd: string): string[] | undefined {
  if (!files?.length) return undefined;
  return files.map((file) => {
    const { full, text } = readFlagFile('--ca', file, cwd);
    if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`--ca: ${full} holds no PEM certificate`);
    return text;
  });
}

/**
 * Driver parameters from a JSON file: an object of name → value, or a list of { name, value }.
 * `flag` names the file in messages (--params, or .parameters.json read by default). A value the
 * collector would never give (an object) is kept, with a warning.
 */
export function readParams(file: string | undefined, cwd: string, options: { flag?: string; warn?: (message: string) => void } = {}): Record<string, unknown> | undefined {
  if (file === undefined) return undefined;
  const flag = options.flag ?? '--params';
  const { full, text } = readFlagFile(flag, file, cwd);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const at = locateJsonError(text, error as Error);
    throw new UsageError(`${flag}: ${full}:${at.line}:${at.column}: not valid JSON: ${at.reason}\n${at.frame}`);
  }
  let params: Record<string, unknown>;
  if (Array.isArray(data)) {
    params = {};
    for (const item of data) {
      if (!item || typeof item !== 'object' || typeof (item as { name?: unknown }).name !== 'string') {
        throw new UsageError(`${flag}: ${full} is a list, so each entry must be { "name": …, "value": … }`);
      }
      params[(item as { name: string }).name] = (item as { value?: unknown }).value;
    }
  } else if (data && typeof data === 'object') {
    params = data as Record<string, unknown>;
  } else {
    throw new UsageError(`${flag}: ${full} must hold a JSON object of parameter name → value`);
  }
  for (const [name, value] of Object.entries(params)) {
    const nested = Array.isArray(value) && value.some((v) => v !== null && typeof v === 'object');
    if ((value !== null && typeof value === 'object' && !Array.isArray(value)) || nested) {
      options.warn?.(
        `${flag}: parameter "${name}" is ${nested ? 'a list holding objects' : 'an object'}; a collector's parameters are strings, numbers or lists of strings, ` +
          `so a real one never gives this: here D.getParameter("${name}") returns it as written (${JSON.stringify(value).slice(0, 60)})`,
      );
    }
  }
  return params;
}
