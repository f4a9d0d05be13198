// The store holds sealed credentials, run logs and the secret's salt: only its owner may read
// it. The database and its -wal / -shm files are 0600 (SQLite gives the -wal and -shm files
// the database file's mode, so the file is made 0600 before SQLite first opens it), and a data
// folder driverbox makes is 0700. Files of an older version left 0644 are tightened on open.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Makes the folder (and missing parents) 0700; an existing folder is left as it is unless `tighten`. */
export function ensurePrivateDir(dir: string, tighten = false): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  else if (tighten) tightenMode(dir, PRIVATE_DIR_MODE);
}

/** Creates the file empty with mode 0600 when it does not exist yet (an empty file is a new SQLite database). */
export function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Removes group and other permissions from the file, if it exists and has any (Windows: no effect). */
export function tightenMode(file: string, mode: number): void {
  if (process.platform === 'win32') return;
  let current: number;
  try {
    current = statSync(file).mode & 0o777;
  } catch {
    return;
  }
  if ((current & 0o077) !== 0) chmodSync(file, mode);
}

/** The database and its WAL companions, 0600. */
export function tightenStoreFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) tightenMode(file, PRIVATE_FILE_MODE);
}
