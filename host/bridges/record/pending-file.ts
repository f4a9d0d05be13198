// A file written all at once when it is complete: its content goes to a temporary file next
// to it, which is renamed over the target (atomic on one file system). The temporary file is
// made before the run starts, so a target that cannot be written is refused up front, and a
// run that never finishes leaves at most a ".tmp" file, never a recording that looks whole.
import { randomBytes } from 'node:crypto';
import { open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { DriverboxError } from '../../contract/errors.js';

function reason(error: unknown, dir: string): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return `the directory ${dir} does not exist`;
    case 'ENOTDIR':
      return `${dir} is not a directory`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied in ${dir}`;
    case 'EROFS':
      return `${dir} is on a read-only file system`;
    default:
      return (error as Error).message;
  }
}

export class PendingFile {
  readonly target: string;
  readonly #temp: string;
  #handle: FileHandle | null;

  private constructor(target: string, temp: string, handle: FileHandle) {
    this.target = target;
    this.#temp = temp;
    this.#handle = handle;
  }

  /** Reserves `file` (relative to the working directory); throws RECORD_UNWRITABLE when it cannot be written. */
  static async reserve(file: string): Promise<PendingFile> {
    const target = path.resolve(file);
    const dir = path.dirname(target);
    const unwritable = (why: string) => new DriverboxError('RECORD_UNWRITABLE', `cannot write the recording ${target}: ${why}`);
    const existing = await stat(target).catch(() => null);
    if (existing?.isDirectory()) throw unwritable('it is a directory');
    const temp = path.join(dir, `.${path.basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    try {
      return new PendingFile(target, temp, await open(temp, 'wx', 0o644));
    } catch (error) {
      throw unwritable(reason(error, dir));
    }
  }

  /** Writes `text` and puts it in place. On failure nothing is left but what was there before. */
  async commit(text: string): Promise<void> {
    const handle = this.#take();
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
      await handle.close();
      await rename(this.#temp, this.target);
    } catch (error) {
      await handle.close().catch(() => {});
      await unlink(this.#temp).catch(() => {});
      throw error;
    }
  }

  /** The run did not finish: the temporary file goes. */
  async discard(): Promise<void> {
    const handle = this.#handle;
    if (!handle) return;
    this.#handle = null;
    await handle.close().catch(() => {});
    await unlink(this.#temp).catch(() => {});
  }

  #take(): FileHandle {
    const handle = this.#handle;
    if (!handle) throw new Error(`the recording ${this.target} was already written or discarded`);
    this.#handle = null;
    return handle;
  }
}
