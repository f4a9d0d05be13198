// What a failed run's message adds when the driver reached for something driverbox (like the
// Domotz collector) does not have: a global of Node or of browsers (`fetch is not defined`), or
// a member of D that driverbox lacks (`D.device.sendSFTP is not a function`). The globals are
// left undefined, so `typeof fetch === 'undefined'` feature tests keep working and a run that
// uses none pays nothing: the message is only looked at when the run has failed.
import { GLOBAL_HINTS, KNOWN_D_MEMBERS } from '../../driver/compat-table.js';
import { closestNames } from '../../closest-name.js';

export { GLOBAL_HINTS, KNOWN_D_MEMBERS };

const COMPATIBILITY = 'docs/reference/compatibility.md';

const NOT_DEFINED = /^ReferenceError: ([A-Za-z_$][\w$]*) is not defined/;
const NOT_A_FUNCTION = /^TypeError: ((?:D|D\.createExternalDevice\(\.\.\.\))(?:\.[A-Za-z_$][\w$]*)+) is not a function/;
const READING = /^TypeError: Cannot read properties of (?:undefined|null) \(reading '([A-Za-z_$][\w$]*)'\)/;

/**
 * The members of D nearest to a missing one (`device.sendSSHComand` → `device.sendSSHCommand`),
 * among its siblings: those of the same parent. An external device has the device's members.
 */
export function nearestMembers(path: string): string[] {
  const dot = path.lastIndexOf('.');
  const parent = dot < 0 ? '' : path.slice(0, dot);
  const name = path.slice(dot + 1);
  const siblings: string[] = [];
  for (const known of KNOWN_D_MEMBERS) {
    const at = known.lastIndexOf('.');
    if ((at < 0 ? '' : known.slice(0, at)) === parent) siblings.push(known.slice(at + 1));
  }
  return closestNames(name, siblings, { max: 2 }).map((n) => (parent ? `${parent}.${n}` : n));
}

/** "driverbox does not have D.x", with the nearest members of D (`near`, spelt as shown) when one is close. */
function missingMember(shown: string, near: string[]): string {
  if (near.length) return `driverbox does not have ${shown}; did you mean ${near.join(' or ')}? See ${COMPATIBILITY} for what D offers`;
  return `driverbox does not have ${shown}: see ${COMPATIBILITY} for what D offers`;
}

/** The hint for one failure message, or null. `lineOf` gives a line of the driver's source. */
export function hintFor(message: string, lineOf?: (line: number) => string | undefined, source?: string): string | null {
  const undefinedName = NOT_DEFINED.exec(message)?.[1];
  if (undefinedName !== undefined) {
    // The driver declares the name in another scope (`const self = this` in one function, `self.x` in another).
    if (source !== undefined && new RegExp(`\\b(?:var|let|const)\\s+${undefinedName.replace(/\$/g, '\\$')}\\b`).test(source)) {
      return `the driver declares ${undefinedName} elsewhere, but not where this line runs: declare it in this function too`;
    }
    const instead = Object.hasOwn(GLOBAL_HINTS, undefinedName) ? GLOBAL_HINTS[undefinedName] : undefined;
    return instead ? `driverbox has no global ${undefinedName}: ${instead} (${COMPATIBILITY})` : null;
  }
  const member = NOT_A_FUNCTION.exec(message)?.[1];
  if (member !== undefined) {
    const shown = member.replace('D.createExternalDevice(...)', 'D.createExternalDevice(host)');
    const external = member.startsWith('D.createExternalDevice(...).');
    const path = external ? `device.${member.slice('D.createExternalDevice(...).'.length)}` : member.slice(2);
    const near = nearestMembers(path).map((m) => (external ? `D.createExternalDevice(host).${m.slice('device.'.length)}()` : `D.${m}()`));
    return missingMember(`${shown}()`, near);
  }
  const reading = READING.exec(message)?.[1];
  if (reading !== undefined && lineOf) {
    const at = /\.js:(\d+):\d+\)?\s*$/m.exec(message);
    const text = at ? lineOf(Number(at[1])) : undefined;
    if (text === undefined) return null;
    // D.a.b.reading on that line: name the first part of the chain driverbox lacks.
    for (const match of text.matchAll(/\bD((?:\s*\.\s*[A-Za-z_$][\w$]*)+)/g)) {
      const parts = match[1]!.split('.').map((p) => p.trim()).filter(Boolean);
      const at = parts.indexOf(reading);
      if (at < 1) continue;
      for (let i = 1; i <= at; i++) {
        const path = parts.slice(0, i).join('.');
        if (!KNOWN_D_MEMBERS.has(path)) return missingMember(`D.${path}`, nearestMembers(path).map((m) => `D.${m}`));
      }
    }
  }
  return null;
}

/** A run's failure message with its hint appended (on a line of its own), if there is one. */
export function withHint(message: string | null, source: string | undefined): string | null {
  if (message === null) return null;
  const lines = source === undefined ? undefined : (n: number) => source.split('\n')[n - 1];
  const hint = hintFor(message, lines, source);
  return hint ? `${message}\n${hint}` : message;
}

/** Log lines looked at for a hint, from the end: a driver that caught the error logged it just before failing. */
const LOG_LINES_READ = 20;

/**
 * The run's warnings, plus one hint when the failure message had none but a log line shows the
 * error (a driver that caught `fetch is not defined` in a promise chain, logged it and called
 * D.failure).
 */
export function withLogHints(warnings: readonly string[], logs: ReadonlyArray<{ message: string }>, message: string | null): string[] {
  const out = [...warnings];
  if (message !== null && hintFor(message) !== null) return out;
  for (let i = logs.length - 1; i >= 0 && i >= logs.length - LOG_LINES_READ; i--) {
    const text = logs[i]!.message;
    const at = text.search(/(ReferenceError|TypeError): /);
    if (at < 0) continue;
    const hint = hintFor(text.slice(at));
    if (hint) {
      out.push(`the driver logged "${text.slice(at, at + 200).split('\n')[0]}": ${hint}`);
      break;
    }
  }
  return out;
}
