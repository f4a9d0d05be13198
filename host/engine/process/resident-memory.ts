// Resident memory of another process (the sandbox child), read from /proc: no message to the
// child and no cost per run. Null where /proc is missing (not Linux) or the process is gone.
import { readFileSync } from 'node:fs';

/** VmRSS of process `pid`, bytes. */
export function residentMemoryBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
