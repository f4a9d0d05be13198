// Child processes as the tests see them: a process's descendants from /proc (Linux), whether a
// pid is alive, and waiting for a condition. The P cases signal the sandbox child by its pid.
import { readdirSync, readFileSync } from 'node:fs';

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Every live descendant of pid whose command line contains `match`. */
export function descendants(pid: number, match: string): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== null) parents.set(Number(entry), parent);
  }
  const found: number[] = [];
  for (const [child] of parents) {
    if (child === pid) continue;
    let at: number | undefined = parents.get(child);
    while (at !== undefined && at > 1 && at !== pid) at = parents.get(at);
    if (at !== pid) continue;
    try {
      if (readFileSync(`/proc/${child}/cmdline`, 'utf8').includes(match)) found.push(child);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The sandbox child processes under pid (its fork of engine/process/child.js). */
export function sandboxChildren(pid: number): number[] {
  return descendants(pid, 'engine/process/child.js');
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie still answers signal 0: it is dead for our purpose.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

export async function until<T>(read: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
