// Inspects a driver's code when it enters the library (and on every new version): its custom
// actions with their @label / @documentation, whether it compiles, and what it uses. This is
// what getCustomDriver shows as actions, errors, is_valid and code_inspection.
import vm from 'node:vm';
import { findImport } from '../../driver/checks.js';
import { listEntryPoints } from '../../driver/entry-points.js';
import { modulesUsed } from '../../driver/modules-used.js';
import { segments } from '../../driver/scan.js';
import { StoreError } from '../../contract/errors.js';

/** Custom action ids run 1–30 (the reference's range). */
export const MAX_CUSTOM_ACTION = 30;
/**
 * Top-level entry-point declarations a driver may have (validate, get_status and custom_1–30
 * are 32; redeclarations count too): more is refused, not stored with thousands of errors.
 */
export const MAX_ENTRY_POINTS = 100;

export interface DriverAction {
  id: number;
  label: string;
  documentation: string;
  line: number;
}

export interface DriverCodeError {
  line: number | null;
  message: string;
  /** SyntaxError, IMPORT_NOT_ALLOWED, MISSING_FUNCTION, INVALID_ACTION. */
  type: string;
}

export interface CodeInspection {
  /**
   * The entry points whose run saves data on the device (reference 1.14.0: one of them at a time per device):
   * get_status (its variables and table) and backup (a configuration), those the driver defines, in that order.
   */
  data_saving_functions: string[];
  has_independent_variables: boolean;
  has_parameters: boolean;
  has_table: boolean;
}

/** The entry points of a driver whose runs save data: get_status (variables, table) and backup (configuration). */
export const DATA_SAVING_FUNCTIONS = ['get_status', 'backup'] as const;

/** data_saving_functions of a driver's code (also for inspections stored before the field existed). */
export function dataSavingFunctions(source: string): string[] {
  const names = new Set(listEntryPoints(source).map((e) => e.name));
  return DATA_SAVING_FUNCTIONS.filter((name) => names.has(name));
}

export interface DriverInspection {
  actions: DriverAction[];
  errors: DriverCodeError[];
  code_inspection: CodeInspection;
  /** Does the code ask for the device's credentials (D.device.username/password, an `auth` option)? */
  uses_credentials: boolean;
  /** driverbox's modules the code uses (http, ssh, snmp, timers…): host/driver/modules-used.ts. Absent in inspections stored before issue 18. */
  modules?: string[];
  /** What the code uses that driverbox does not have, one sentence each (warnings: the driver is stored and may still run). */
  missing?: string[];
}

export function inspectDriver(source: string, filename = 'driver.js'): DriverInspection {
  const errors: DriverCodeError[] = [];
  const imported = findImport(source, filename);
  const syntax = syntaxError(source, filename);
  // An import statement is also a syntax error in a script: report it once, as the sandbox does.
  if (syntax && !(imported && /\bimport\b/.test(syntax.message))) errors.push(syntax);
  if (imported) errors.push({ line: lineOf(imported.message, filename), message: imported.message, type: imported.errorType });

  const entries = listEntryPoints(source);
  if (entries.length > MAX_ENTRY_POINTS) {
    throw new StoreError(
      'INVALID',
      `body.code: declares ${entries.length} top-level entry points (validate, get_status, custom_N); a driver has at most ${MAX_ENTRY_POINTS}`,
    );
  }
  const actions: DriverAction[] = [];
  for (const entry of entries) {
    if (!entry.name.startsWith('custom_')) continue;
    const id = Number(entry.name.slice('custom_'.length));
    if (id > MAX_CUSTOM_ACTION) {
      errors.push({ line: entry.line, message: `${entry.name}: custom actions are custom_1 to custom_${MAX_CUSTOM_ACTION}`, type: 'INVALID_ACTION' });
      continue;
    }
    actions.push({ id, label: entry.label ?? entry.name, documentation: entry.documentation ?? '', line: entry.line });
  }
  for (const required of ['validate', 'get_status']) {
    if (!entries.some((e) => e.name === required)) {
      errors.push({ line: null, message: `the driver defines no top-level function ${required}()`, type: 'MISSING_FUNCTION' });
    }
  }

  const code = segments(source)
    .filter((s) => s.kind === 'code')
    .map((s) => s.text)
    .join(' ');
  const used = modulesUsed(source);
  return {
    actions,
    errors,
    code_inspection: {
      data_saving_functions: DATA_SAVING_FUNCTIONS.filter((name) => entries.some((e) => e.name === name)),
      has_independent_variables: /\bD\s*\.\s*createVariable\s*\(/.test(code),
      has_parameters: /\bD\s*\.\s*getParameter\s*\(/.test(code),
      has_table: /\bD\s*\.\s*createTable\s*\(/.test(code),
    },
    uses_credentials: /\bD\s*\.\s*device\s*\.\s*(username|password)\s*\(/.test(code) || /[{,]\s*auth\s*:/.test(code),
    modules: used.modules.map((m) => m.name),
    missing: used.missing,
  };
}

/**
 * Compiles without running (node:vm compiles with the same V8 the sandbox uses), so a
 * syntax error is found when the driver is stored rather than at its first run.
 */
function syntaxError(source: string, filename: string): DriverCodeError | null {
  try {
    new vm.Script(source, { filename });
    return null;
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // V8 puts "file:line", the line's text and a caret under the offending token in the stack.
    const [where = '', text = '', caret = ''] = (error.stack ?? '').split('\n');
    const line = Number(/:(\d+)$/.exec(where)?.[1]) || null;
    const column = caret.indexOf('^') + 1;
    const at = line ? ` at ${filename}:${line}${column > 0 ? `:${column}` : ''}` : '';
    const excerpt = line && text.trim() ? `: ${text.trim()}` : '';
    return { line, message: `SyntaxError: ${error.message}${at}${excerpt}`, type: 'SyntaxError' };
  }
}

function lineOf(message: string, filename: string): number | null {
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return Number(new RegExp(`${escaped}:(\\d+):\\d+`).exec(message)?.[1]) || null;
}
