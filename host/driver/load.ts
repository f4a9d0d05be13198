// Reads a driver from a file or takes it as text, with the file name its stack frames will show.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DriverboxError } from '../contract/errors.js';

export interface DriverSource {
  source: string;
  /** Name the driver is compiled under: what its error messages and stack frames show. */
  filename: string;
  path: string | null;
}

export async function loadDriver(input: { path?: string; source?: string; filename?: string }): Promise<DriverSource> {
  if (typeof input.source === 'string') {
    return { source: input.source, filename: input.filename ?? 'driver.js', path: input.path ?? null };
  }
  if (!input.path) throw new DriverboxError('INVALID_OPTIONS', 'a run needs a driver: give `path` or `source`');
  const full = path.resolve(input.path);
  try {
    const source = await readFile(full, 'utf8');
    return { source, filename: input.filename ?? path.basename(full), path: full };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new DriverboxError('DRIVER_NOT_FOUND', `driver file not found: ${full}`);
    if (code === 'EISDIR') throw new DriverboxError('DRIVER_UNREADABLE', `driver path is a directory, not a file: ${full}`);
    throw new DriverboxError('DRIVER_UNREADABLE', `cannot read driver file ${full}: ${(error as Error).message}`);
  }
}
