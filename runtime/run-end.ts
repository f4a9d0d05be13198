// D.success / D.failure and uncaught errors: whichever comes first ends the run;
// anything after it is reported as a warning and otherwise ignored.
import type { Bridge } from './bridge';
import { errorType } from './constants';
import { describeError, driverCallSite } from './error-text';
import { checkBackup, looksLikeBackup } from './backup';
import type { BackupRecord, RunEnd, TableRecord } from './protocol';
import { Table } from './tables';
import { collectVariables } from './variables';
import type { Warn } from './warnings';
import { append, hasOwn, isArray, stringify } from './intrinsics';

export interface RunEnder {
  success(...args: unknown[]): void;
  failure(type?: unknown): void;
  uncaught(error: unknown): void;
  /** Ends the run with a failure of the given type (require/import refusals, limits). */
  fail(type: string, message: string): void;
  /** Has the run ended (an outcome was sent)? */
  ended(): boolean;
}

/** `beforeEnd` runs once, just before the first outcome is sent (the console's final count of dropped lines). */
export function createRunEnder(bridge: Bridge, warn: Warn, maxVariables: number, driverFilename: string, beforeEnd: () => void = () => undefined): RunEnder {
  let ended: string | null = null;

  const end = (result: RunEnd, how: string): void => {
    if (ended) {
      warn(`${how} came after the run had already ended with ${ended}; it was ignored (the first outcome wins)`);
      return;
    }
    ended = how;
    try {
      beforeEnd();
    } catch {
      // A count that could not be sent leaves the host's last one; the outcome still goes.
    }
    try {
      bridge.call('end', result);
    } catch (error) {
      // The report could not be made into JSON (a toJSON of the driver's on Object.prototype or
      // Array.prototype threw, or made it too deep): a failure made of text only goes instead.
      const message = `the run's outcome (${how}) could not be sent to the host (did the driver define toJSON?): ${describeError(error, driverFilename)}`;
      bridge.callText('end', `{"status":"failure","errorType":"GENERIC_ERROR","message":${stringify(message)},"variables":[],"tables":[]}`);
    }
  };

  const failure = (type: string, message: string | null): RunEnd => ({
    status: 'failure',
    errorType: type,
    message,
    variables: [],
    tables: [],
  });

  return {
    success(...args) {
      if (ended) return warn(`D.success came after the run had already ended with ${ended}; it was ignored (the first outcome wins)`);
      const variables: unknown[] = [];
      const tables: TableRecord[] = [];
      let backup: BackupRecord | null = null;
      // Indexed loops and append(): a driver may have replaced Array.prototype's iterator, slice or push.
      for (let a = 0; a < args.length && a < 2; a++) {
        const arg = args[a];
        if (!arg) continue;
        if (arg instanceof Table) append(tables, arg.getResult());
        else if (looksLikeBackup(arg)) {
          if (backup) {
            warn('D.success was given two configuration backups; only the first one is kept');
            continue;
          }
          // Checked again now: the driver may have changed it since D.createBackup, or built it by hand.
          try {
            backup = checkBackup(arg, warn);
          } catch (error) {
            end(failure(errorType.GENERIC_ERROR, `D.success: ${describeError(error, driverFilename)}`), 'D.success');
            return;
          }
        } else if (isArray(arg)) for (let i = 0; i < arg.length; i++) append(variables, arg[i]);
        else warn(`D.success expects (variables, table); an argument of type ${typeof arg} was ignored`);
      }
      if (args.length > 2) warn(`D.success takes at most two arguments (variables, table); ${args.length - 2} more were ignored`);
      if (variables.length > maxVariables) {
        end(
          failure(errorType.TOO_MANY_VARIABLES_ERROR, `the driver reported ${variables.length} variables; the limit is ${maxVariables} per run`),
          'D.success',
        );
        return;
      }
      const outcome: RunEnd = { status: 'success', errorType: null, message: null, variables: collectVariables(variables, warn), tables };
      if (backup) outcome.backup = backup;
      end(outcome, 'D.success');
    },
    failure(type) {
      let chosen: string = errorType.GENERIC_ERROR;
      if (typeof type === 'string' && hasOwn(errorType, type)) chosen = type;
      else if (!ended) warn(`D.failure: error type ${typeof type === 'symbol' ? 'a symbol' : (stringify(type) ?? 'undefined')} is not one of D.errorType; reported as GENERIC_ERROR`);
      // Where the driver called it, so a failure among many D.failure calls says which one.
      const site = ended ? null : driverCallSite(driverFilename);
      end(failure(chosen, `the driver called D.failure(${chosen})${site === null ? '' : ` at ${site}`}`), 'D.failure');
    },
    uncaught(error) {
      end(failure(errorType.GENERIC_ERROR, describeError(error, driverFilename)), 'an uncaught error');
    },
    fail(type, message) {
      end(failure(type, message), type);
    },
    ended: () => ended !== null,
  };
}
