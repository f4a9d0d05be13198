// Linux /proc readings for the benches: CPU time of a thread or process and a process's RSS.
// Each answers null where /proc is missing (not Linux) or the process is gone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second: /proc CPU times are counted in them. */
export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a /proc stat file, in ms (tick resolution, 10 ms at 100 Hz). */
function statCpuMs(file: string): number | null {
  try {
    const stat = readFileSync(file, 'utf8');
    // The command name (field 2) may hold spaces: count fields from after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** CPU time (user + system) of the calling thread, ms. */
export function threadCpuMs(): number | null {
  return statCpuMs('/proc/thread-self/stat');
}

/** CPU time (user + system, all its threads) of process `pid`, ms. */
export function processCpuMs(pid: number): number | null {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** Resident set size of process `pid` (VmRSS), bytes. */
export { residentMemoryBytes as processRssBytes } from '../../host/engine/process/resident-memory.js';
