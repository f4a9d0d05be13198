// Reads a fixture file: JSON (a syntax error is reported with its line and column),
// then validated by parseFixture with bodyFile paths taken from the file's folder.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FixtureError } from './fixture-error.js';
import type { Fixture } from './fixture-types.js';
import { parseFixture } from './parse-fixture.js';

/** "… at position 120" → "line 7, column 3": a hand-written file is read by lines. */
function locate(text: string, message: string): string {
  const position = /position (\d+)/.exec(message);
  if (!position) return message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${message.replace(/\s*in JSON at position \d+.*$/, '')} at line ${line}, column ${column}`;
}

export function loadFixture(file: string): Fixture {
  const full = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FixtureError(full, [`cannot be read: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message}`]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(full, [`is not valid JSON: ${locate(text, (error as Error).message)}`]);
  }
  return parseFixture(data, { file: full });
}
