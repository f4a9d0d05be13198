// Reading a recording for replay: from a file or an object already parsed, checked field by
// field before the run starts, so that a damaged or foreign file is a clear error naming the
// field, never a replay that misbehaves halfway.
import path from 'node:path';
import { DriverboxError } from '../../contract/errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../untrusted-input/plain-values.js';
import { MAX_RECORDED_EXCHANGES, MAX_RECORDING_BYTES, parseUntrustedJson, prototypeKeyMessage, prototypeKeyPath, readBoundedText, UntrustedInputError } from '../../untrusted-input/files.js';
import { PROTOCOL_KINDS, RECORDING_VERSION, type RecordedBody, type RecordedExchange, type RecordingFile } from '../../contract/recording.js';

class Malformed extends Error {}
class TooMany extends Error {}

type Json = Record<string, unknown>;

const show = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 80) ?? String(value));

function expect(ok: boolean, where: string, what: string, value: unknown): void {
  if (!ok) throw new Malformed(`${where} must be ${what} (got ${show(value)})`);
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function object(value: unknown, where: string): Json {
  expect(isObject(value), where, 'an object', value);
  return value as Json;
}

function string(value: unknown, where: string): string {
  expect(typeof value === 'string', where, 'a string', value);
  return value as string;
}

function nullableString(value: unknown, where: string): string | null {
  expect(value === null || typeof value === 'string', where, 'a string or null', value);
  return value as string | null;
}

function integer(value: unknown, where: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  expect(Number.isInteger(value) && (value as number) >= min && (value as number) <= max, where, `an integer from ${min} to ${max}`, value);
  return value as number;
}

function url(value: unknown, where: string, protocols: string[]): string {
  const text = string(value, where);
  let parsed: URL | null = null;
  try {
    parsed = new URL(text);
  } catch {
    // reported below
  }
  expect(parsed !== null && protocols.includes(parsed.protocol), where, `a ${protocols.join(' or ')} url`, value);
  return text;
}

function body(value: unknown, where: string): RecordedBody | null {
  if (value === null) return null;
  const given = object(value, where);
  if (typeof given.text === 'string') return { text: given.text };
  expect(typeof given.base64 === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(given.base64), where, 'null, { "text": … } or { "base64": … }', value);
  return { base64: given.base64 as string };
}

function headers(value: unknown, where: string, lists: boolean): Record<string, string | string[]> {
  const given = object(value, where);
  for (const [name, header] of Object.entries(given)) {
    const ok = typeof header === 'string' || (lists && Array.isArray(header) && header.every((h) => typeof h === 'string'));
    expect(ok, `${where}.${name}`, lists ? 'a string or a list of strings' : 'a string', header);
  }
  return given as Record<string, string | string[]>;
}

function failure(value: unknown, where: string): { code: string; message: string } {
  const given = object(value, where);
  return { code: string(given.code, `${where}.code`), message: string(given.message, `${where}.message`) };
}

/** Exactly one outcome: what replay answers. */
function outcomeOf(entry: Json, where: string, fields: string[]): void {
  const present = fields.filter((f) => entry[f] !== undefined);
  expect(present.length === 1, where, `one of ${fields.map((f) => `"${f}"`).join(', ')}`, present.length ? present : undefined);
  if (entry.unanswered !== undefined) expect(entry.unanswered === true, `${where}.unanswered`, 'true', entry.unanswered);
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

function exchange(value: unknown, where: string): RecordedExchange {
  const entry = object(value, where);
  if (entry.kind === 'tls') {
    url(entry.url, `${where}.url`, ['tls:']);
    outcomeOf(entry, where, ['answer', 'unanswered']);
    if (entry.answer !== undefined) {
      const answer = object(entry.answer, `${where}.answer`);
      if (answer.error !== null) failure(answer.error, `${where}.answer.error`);
      expect(answer.certificate === null || isObject(answer.certificate), `${where}.answer.certificate`, 'an object or null', answer.certificate);
      expect((answer.error === null) !== (answer.certificate === null), `${where}.answer`, 'either an error or a certificate', answer);
    }
    return entry as unknown as RecordedExchange;
  }
  if ((PROTOCOL_KINDS as readonly unknown[]).includes(entry.kind)) {
    url(entry.url, `${where}.url`, PROTOCOL_KINDS.map((kind) => `${kind.toLowerCase()}:`));
    object(entry.request, `${where}.request`);
    outcomeOf(entry, where, ['answer', 'unanswered']);
    if (entry.answer !== undefined) {
      const answer = object(entry.answer, `${where}.answer`);
      if (answer.error !== null) failure(answer.error, `${where}.answer.error`);
    }
    return entry as unknown as RecordedExchange;
  }
  expect(
    entry.kind === 'http',
    `${where}.kind`,
    `one of "http", "tls", ${PROTOCOL_KINDS.map((k) => `"${k}"`).join(', ')} (a kind this driverbox does not know: was the recording made by a newer one?)`,
    entry.kind,
  );
  expect(METHODS.has(entry.method as string), `${where}.method`, 'GET, POST, PUT or DELETE', entry.method);
  url(entry.url, `${where}.url`, ['http:', 'https:']);
  const request = object(entry.request, `${where}.request`);
  headers(request.headers, `${where}.request.headers`, false);
  body(request.body, `${where}.request.body`);
  outcomeOf(entry, where, ['response', 'error', 'unanswered']);
  if (entry.response !== undefined) {
    const response = object(entry.response, `${where}.response`);
    integer(response.status, `${where}.response.status`, 100, 599);
    headers(response.headers, `${where}.response.headers`, true);
    body(response.body, `${where}.response.body`);
    integer(response.wireBytes, `${where}.response.wireBytes`, 0);
  }
  if (entry.error !== undefined) failure(entry.error, `${where}.error`);
  return entry as unknown as RecordedExchange;
}

function recordingOf(data: unknown): RecordingFile {
  const root = object(data, 'the recording');
  const device = object(root.device, 'device');
  nullableString(device.ip, 'device.ip');
  nullableString(device.host, 'device.host');
  nullableString(device.username, 'device.username');
  expect(typeof device.hasPassword === 'boolean', 'device.hasPassword', 'true or false', device.hasPassword);
  for (const [from, to] of Object.entries(object(device.portMap, 'device.portMap'))) {
    expect(/^\d+$/.test(from) && Number(from) >= 1 && Number(from) <= 65535, `device.portMap key ${JSON.stringify(from)}`, 'a port', from);
    integer(to, `device.portMap.${from}`, 1, 65535);
  }
  if (root.resolve !== undefined) {
    for (const [name, pin] of Object.entries(object(root.resolve, 'resolve'))) {
      const entry = object(pin, `resolve.${name}`);
      string(entry.ip, `resolve.${name}.ip`);
      for (const [from, to] of Object.entries(object(entry.portMap, `resolve.${name}.portMap`))) integer(to, `resolve.${name}.portMap.${from}`, 1, 65535);
    }
  }
  if (root.redirectHosts !== undefined) {
    expect(Array.isArray(root.redirectHosts), 'redirectHosts', 'a list of host names', root.redirectHosts);
    (root.redirectHosts as unknown[]).forEach((h, i) => string(h, `redirectHosts[${i}]`));
  }
  string(root.action, 'action');
  if (root.driver !== undefined) string(root.driver, 'driver');
  if (root.recordedAt !== undefined) string(root.recordedAt, 'recordedAt');
  expect(Array.isArray(root.exchanges), 'exchanges', 'a list', root.exchanges);
  const count = (root.exchanges as unknown[]).length;
  if (count > MAX_RECORDED_EXCHANGES) throw new TooMany(`it has ${count} exchanges, more than the limit of ${MAX_RECORDED_EXCHANGES}`);
  (root.exchanges as unknown[]).forEach((entry, i) => exchange(entry, `exchanges[${i}]`));
  return root as unknown as RecordingFile;
}

/** The recording to replay: a path (read now) or an object already parsed. Throws DriverboxError REPLAY_*. */
export async function loadRecording(input: unknown): Promise<RecordingFile> {
  let data: unknown = input;
  let source = 'the replay recording';
  if (typeof input === 'string') {
    const file = path.resolve(input);
    source = file;
    let text: string;
    try {
      // Bounded before a byte is parsed: a recording is untrusted input, like the driver it came with.
      text = readBoundedText(file, MAX_RECORDING_BYTES, 'it');
    } catch (error) {
      if (error instanceof UntrustedInputError) throw new DriverboxError('REPLAY_TOO_LARGE', `cannot read the recording ${file}: ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      throw new DriverboxError('REPLAY_UNREADABLE', `cannot read the recording ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`);
    }
    try {
      data = parseUntrustedJson(text);
    } catch (error) {
      if (error instanceof UntrustedInputError) throw new DriverboxError('REPLAY_MALFORMED', `${file} is not a valid recording: ${error.message}`);
      throw new DriverboxError('REPLAY_MALFORMED', `${file} is not a driverbox recording: not valid JSON (${(error as Error).message.replace(/^Unexpected token.*$/, 'unexpected character')})`);
    }
  } else if (!isObject(input)) {
    throw new DriverboxError('INVALID_OPTIONS', `replay must be the path of a recording or a recording object (got ${show(input)})`);
  }
  if (!isObject(data) || data.recording === undefined) {
    throw new DriverboxError('REPLAY_MALFORMED', `${source} is not a driverbox recording: it has no "recording" version field`);
  }
  if (data.recording !== RECORDING_VERSION) {
    throw new DriverboxError('REPLAY_VERSION', `${source} is a recording of version ${show(data.recording)}; this driverbox reads version ${RECORDING_VERSION} only (record it again)`);
  }
  // A recording given as an object: its keys checked as a file's are (parseUntrustedJson).
  if (typeof input !== 'string' && nestsDeeperThan(data, MAX_JSON_DEPTH)) {
    throw new DriverboxError('REPLAY_MALFORMED', `${source} is not a valid recording: nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  const prototypeKey = typeof input === 'string' ? null : prototypeKeyPath(data);
  if (prototypeKey !== null) throw new DriverboxError('REPLAY_MALFORMED', `${source} is not a valid recording: ${prototypeKeyMessage(prototypeKey)}`);
  try {
    return recordingOf(data);
  } catch (error) {
    if (error instanceof TooMany) throw new DriverboxError('REPLAY_TOO_LARGE', `${source} is refused: ${error.message}`);
    if (!(error instanceof Malformed)) throw error;
    throw new DriverboxError('REPLAY_MALFORMED', `${source} is not a valid recording: ${error.message}`);
  }
}
