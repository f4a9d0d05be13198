// CPU time from /proc: of whole process groups (an agent: launcher, node, sandbox process) and of
// a process with all its children (the postmaster and its backends; redis-server). Each process
// counts utime + stime + cutime + cstime: the last two are children it already reaped (backends
// that ended, a restarted sandbox), so nothing that ran in between is missed.
import { readdirSync, readFileSync } from 'node:fs';
import { CLOCK_TICKS } from '../lib/proc.js';

interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  /** utime + stime + cutime + cstime, ms. */
  cpuMs: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command (field 2) may hold spaces: fields count from after its closing parenthesis.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { pid, ppid: Number(f[1]), pgrp: Number(f[2]), cpuMs: (ticks * 1000) / CLOCK_TICKS };
  } catch {
    return null;
  }
}

function allStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** What to count: process groups (by leader pid) and process trees (by root pid). */
export interface CpuTargets {
  groups: number[];
  trees: number[];
}

/** CPU ms per target name, read now. */
export function readCpu(targets: Record<string, CpuTargets>): Record<string, number> {
  const stats = allStats();
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const byPid = new Map(stats.map((s) => [s.pid, s]));
  const out: Record<string, number> = {};
  for (const [name, target] of Object.entries(targets)) {
    const counted = new Set<number>();
    for (const stat of stats) if (target.groups.includes(stat.pgrp)) counted.add(stat.pid);
    const walk = (pid: number) => {
      if (!byPid.has(pid) || counted.has(pid)) return;
      counted.add(pid);
      for (const child of children.get(pid) ?? []) walk(child.pid);
    };
    for (const root of target.trees) walk(root);
    out[name] = [...counted].reduce((sum, pid) => sum + byPid.get(pid)!.cpuMs, 0);
  }
  return out;
}

/** The difference of two readings, per name. */
export function cpuSpent(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((name) => [name, Math.max(0, after[name]! - (before[name] ?? 0))]));
}

/** A process is a sandbox process (the child an agent runs its drivers in) by its command line. */
function isSandboxProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('engine/process/child');
  } catch {
    return false;
  }
}

/** CPU ms of the sandbox processes in these process groups, read now: the part of an agent's figure its drivers' runs take. */
export function readSandboxCpu(groups: readonly number[]): number {
  return allStats()
    .filter((stat) => groups.includes(stat.pgrp) && isSandboxProcess(stat.pid))
    .reduce((sum, stat) => sum + stat.cpuMs, 0);
}
