// Reads each driver script an inventory names (relative to the inventory file) and checks it
// the way the library will: a driver that would be stored as invalid, or an action it does not
// define, is an inventory problem now rather than a failed run later.
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { listEntryPoints } from '../../driver/entry-points.js';
import { inspectDriver } from '../../store/drivers/driver-inspection.js';
import type { FieldChecker } from '../../simulator/field-checker.js';
import { fieldPath } from '../../simulator/field-checker.js';

export interface DriverFile {
  path: string;
  source: string;
}

/** The driver file at `relativePath` from `baseDir`, or null after recording why it cannot be used. */
export function readDriverFile(
  checker: FieldChecker,
  at: string,
  baseDir: string,
  relativePath: string,
  actions: readonly string[] | null,
): DriverFile | null {
  const path = resolve(baseDir, relativePath);
  let source: string;
  try {
    if (!statSync(path).isFile()) {
      checker.problem(fieldPath(at, 'path'), `${path} is not a file`);
      return null;
    }
    source = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    checker.problem(fieldPath(at, 'path'), code === 'ENOENT' ? `${path} does not exist` : `cannot read ${path}: ${(error as Error).message}`);
    return null;
  }
  const inspection = inspectDriver(source, path);
  for (const e of inspection.errors) {
    // Inspection messages may already start with their type ("SyntaxError: …"): say it once.
    const message = e.message.startsWith(`${e.type}: `) ? e.message : `${e.type}: ${e.message}`;
    checker.problem(fieldPath(at, 'path'), `${relativePath}${e.line ? ` line ${e.line}` : ''}: ${message}`);
  }
  const defined = new Set(['get_status', 'validate', ...inspection.actions.map((a) => `custom_${a.id}`)]);
  // backup() is optional (configuration-management drivers): listed when the driver has it.
  if (listEntryPoints(source).some((e) => e.name === 'backup')) defined.add('backup');
  actions?.forEach((action, i) => {
    if (!defined.has(action)) {
      checker.problem(fieldPath(fieldPath(at, 'actions'), i), `${relativePath} defines no function ${action}() (it has ${[...defined].join(', ')})`);
    }
  });
  return { path, source };
}
