// Reads a fixture file: its size bounded before it is read, then JSON (a syntax error is
// reported with its line and column; depth and prototype keys checked, untrusted-input/files.ts),
// then validated by parseFixture with bodyFile paths taken from, and kept inside, the file's folder.
import path from 'node:path';
import { FixtureError } from '../contract/errors.js';
import type { Fixture } from './fixture-types.js';
import { parseFixture } from './parse-fixture.js';
import { MAX_FIXTURE_BYTES, parseUntrustedJson, readBoundedText, UntrustedInputError } from '../untrusted-input/files.js';

/** "… at position 120" → "line 7, column 3": a hand-written file is read by lines. */
function locate(text: string, message: string): string {
  // V8 quotes a piece of the text after "Unexpected token": not repeated (the file may be anything but a fixture).
  const said = /^Unexpected token/.test(message) ? 'unexpected character' : message.replace(/\s*in JSON at position \d+.*$/, '');
  const position = /position (\d+)/.exec(message);
  if (!position) return said;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${said} at line ${line}, column ${column}`;
}

export function loadFixture(file: string): Fixture {
  const full = path.resolve(file);
  let text: string;
  try {
    text = readBoundedText(full, MAX_FIXTURE_BYTES, 'the file');
  } catch (error) {
    if (error instanceof UntrustedInputError) throw new FixtureError(full, [`cannot be read: ${error.message}`]);
    const code = (error as NodeJS.ErrnoException).code;
    throw new FixtureError(full, [`cannot be read: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`]);
  }
  let data: unknown;
  try {
    data = parseUntrustedJson(text);
  } catch (error) {
    if (error instanceof UntrustedInputError) throw new FixtureError(full, [error.message]);
    throw new FixtureError(full, [`is not valid JSON: ${locate(text, (error as Error).message)}`]);
  }
  return parseFixture(data, { file: full });
}
