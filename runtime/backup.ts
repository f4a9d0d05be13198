// D.createBackup: a configuration backup that backup() hands to D.success. The rules are the
// public collector's (running required and a string, startup a string or nothing, each at most
// 1 MiB counted in characters as the platform counts it); the error texts are the platform's,
// which drivers log. The object is plain data with type "backup", as the platform returns, so
// D.success checks it again when it is reported (a driver may change it in between, or build one
// by hand) and the host checks it once more (host/engine/isolate/check-report.ts).
import { backupBounds } from './constants';
import { raise } from './error-text';
import { hasOwn, isArray, stringSlice } from './intrinsics';
import type { BackupRecord } from './protocol';
import type { Warn } from './warnings';

/** Largest running or startup configuration, in characters (String length), as the platform counts. */
export const BACKUP_MAX_CHARS = backupBounds.configurationChars;
/** The label of a backup created without one. */
export const DEFAULT_BACKUP_LABEL = 'Custom Driver Configuration Backup';
/** Longest label kept (the platform does not say; it is a title in a list): longer ones are cut, with a warning. */
export const BACKUP_LABEL_MAX_CHARS = backupBounds.label;

function typeName(value: unknown): string {
  return value === null ? 'null' : isArray(value) ? 'array' : typeof value;
}

/** The backup `value` describes, checked; throws the platform's errors into the driver. */
export function checkBackup(value: unknown, warn: Warn): BackupRecord {
  if (value === undefined || value === null) {
    throw raise(new Error('Invalid configuration backup object - it must not be null or undefined'));
  }
  if (typeof value !== 'object') {
    throw raise(new TypeError(`Invalid configuration backup object - it must be an object with label, running and startup, not ${typeName(value)}`));
  }
  const o = value as Record<string, unknown>;
  let label = o.label;
  if (label === undefined || label === null || label === '') label = DEFAULT_BACKUP_LABEL;
  if (typeof label !== 'string') {
    throw raise(new TypeError(`Invalid configuration backup label - it must be a string and not ${typeName(label)}`));
  }
  if (label.length > BACKUP_LABEL_MAX_CHARS) {
    warn(`D.createBackup: the label has ${label.length} characters; it was cut to ${BACKUP_LABEL_MAX_CHARS}`);
    label = stringSlice(label, 0, BACKUP_LABEL_MAX_CHARS);
  }
  const running = o.running;
  if (typeof running !== 'string') {
    throw raise(new TypeError(`Invalid running configuration backup content - it must be string and not ${typeName(running)}`));
  }
  if (running.length > BACKUP_MAX_CHARS) {
    throw raise(new RangeError(`Maximum running configuration backup size exceeded: allowed ${BACKUP_MAX_CHARS} bytes, provided ${running.length}`));
  }
  const startup = o.startup;
  if (startup !== undefined && startup !== null && typeof startup !== 'string') {
    // The emulator means to throw this but, by a slip in its test, keeps null instead.
    throw raise(new TypeError(`Invalid startup configuration backup content - it must be string, null or undefined and not ${typeName(startup)}`));
  }
  if (typeof startup === 'string' && startup.length > BACKUP_MAX_CHARS) {
    throw raise(new RangeError(`Maximum startup configuration backup size exceeded: allowed ${BACKUP_MAX_CHARS} bytes, provided ${startup.length}`));
  }
  return { label: label as string, running, startup: typeof startup === 'string' ? startup : null };
}

export function createBackupFactory(warn: Warn): (value: unknown) => Record<string, unknown> {
  return function createBackup(value) {
    const backup = checkBackup(value, warn);
    return { label: backup.label, running: backup.running, startup: backup.startup, type: 'backup' };
  };
}

/** Does a D.success argument claim to be a backup (what D.createBackup returns, or the same built by hand)? */
export function looksLikeBackup(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || isArray(value)) return false;
  return hasOwn(value, 'type') && (value as Record<string, unknown>).type === 'backup';
}
