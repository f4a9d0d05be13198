// What the rig reads out of the store and the device log: the slot of each poll (from its arrival,
// the association's period and the scheduler's offset), slots polled twice, due slots without a
// result, gaps between started slots, start lateness.
import { offsetOf } from '../../host/scale-out/index.js';
import { percentile } from '../lib/common.js';
import type { Poll } from './device.js';
import type { RigAssociation, StoredRun } from './rig.js';

/** The slot (k × period + offset) a time falls in: a run's requests fall inside its slot's period. */
export function slotAt(atMs: number, periodMs: number, offsetMs: number): number {
  return Math.floor((atMs - offsetMs) / periodMs) * periodMs + offsetMs;
}

/** Slots of an association in [fromMs, toMs). */
export function slotsBetween(association: RigAssociation, fromMs: number, toMs: number): number[] {
  const offset = offsetOf(association.id, association.periodMs);
  const slots: number[] = [];
  for (let slot = slotAt(fromMs, association.periodMs, offset) + (fromMs === slotAt(fromMs, association.periodMs, offset) ? 0 : association.periodMs); slot < toMs; slot += association.periodMs) {
    slots.push(slot);
  }
  return slots;
}

export interface PolledSlot {
  associationId: number;
  slotMs: number;
  at: number;
  /** The agent by source address (namespaces), else null. */
  agent: string | null;
}

/** Each poll's association and slot. Polls of tags the store does not know are left out. */
export function pollSlots(polls: Poll[], associations: Map<string, RigAssociation>, agentOf: (address: string) => number | undefined): PolledSlot[] {
  const out: PolledSlot[] = [];
  for (const poll of polls) {
    const association = associations.get(poll.tag);
    if (!association) continue;
    const k = agentOf(poll.from);
    out.push({
      associationId: association.id,
      slotMs: slotAt(poll.at, association.periodMs, offsetOf(association.id, association.periodMs)),
      at: poll.at,
      agent: k === undefined ? null : `a${k}`,
    });
  }
  return out;
}

const key = (associationId: number, slotMs: number) => `${associationId}@${slotMs}`;

/** (association, slot) pairs the device saw more than once, with who polled them. */
export function doublePolls(polled: PolledSlot[]): { associationId: number; slotMs: number; agents: (string | null)[] }[] {
  const seen = new Map<string, PolledSlot[]>();
  for (const p of polled) seen.set(key(p.associationId, p.slotMs), [...(seen.get(key(p.associationId, p.slotMs)) ?? []), p]);
  return [...seen.values()].filter((list) => list.length > 1).map((list) => ({ associationId: list[0]!.associationId, slotMs: list[0]!.slotMs, agents: list.map((p) => p.agent) }));
}

/** Runs whose slot is not k × period + offset (the device's slot inference would be wrong). */
export function misalignedRuns(runs: StoredRun[], byId: Map<number, RigAssociation>): number {
  return runs.filter((r) => {
    const a = byId.get(r.associationId);
    return a !== undefined && (((r.slotMs - offsetOf(a.id, a.periodMs)) % a.periodMs) + a.periodMs) % a.periodMs !== 0;
  }).length;
}

export interface Coverage {
  due: number;
  stored: number;
  succeeded: number;
  /** Due slots with no stored result. */
  missing: { associationId: number; slotMs: number }[];
}

/** Due slots in [fromMs, toMs) against stored results (slots whose latest start is before toMs). */
export function coverage(runs: StoredRun[], associations: RigAssociation[], fromMs: number, toMs: number): Coverage {
  const stored = new Map(runs.map((r) => [key(r.associationId, r.slotMs), r]));
  const result: Coverage = { due: 0, stored: 0, succeeded: 0, missing: [] };
  for (const a of associations) {
    for (const slot of slotsBetween(a, fromMs, toMs)) {
      result.due++;
      const run = stored.get(key(a.id, slot));
      if (!run) result.missing.push({ associationId: a.id, slotMs: slot });
      else {
        result.stored++;
        if (run.outcome === 'success') result.succeeded++;
      }
    }
  }
  return result;
}

/** Per association, the largest gap between consecutive started runs within [fromMs, toMs] (started times). */
export function largestGaps(runs: StoredRun[], fromMs: number, toMs: number): Map<number, number> {
  const byAssociation = new Map<number, number[]>();
  for (const r of runs) if (r.started >= fromMs && r.started <= toMs) byAssociation.set(r.associationId, [...(byAssociation.get(r.associationId) ?? []), r.started]);
  const gaps = new Map<number, number>();
  for (const [id, starts] of byAssociation) {
    starts.sort((a, b) => a - b);
    let largest = 0;
    for (let i = 1; i < starts.length; i++) largest = Math.max(largest, starts[i]! - starts[i - 1]!);
    gaps.set(id, largest);
  }
  return gaps;
}

export interface Lateness {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function latenessOf(runs: StoredRun[]): Lateness {
  const values = runs.map((r) => r.started - r.slotMs).sort((a, b) => a - b);
  return { count: values.length, p50: percentile(values, 50), p99: percentile(values, 99), max: values[values.length - 1] ?? NaN };
}

/** Runs that started after their slot's latest start (slot + period − D): the start rule broken. */
export function staleStarts(runs: StoredRun[], byId: Map<number, RigAssociation>, deadlineMs: number): StoredRun[] {
  return runs.filter((r) => {
    const a = byId.get(r.associationId);
    return a !== undefined && r.started > r.slotMs + a.periodMs - deadlineMs;
  });
}

/** Runs per runner among the given runs. */
export function shares(runs: StoredRun[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.runner ?? '?', (counts.get(r.runner ?? '?') ?? 0) + 1);
  return counts;
}

/**
 * Results committed after their successor's slot began (runs.started + elapsed_ms is the write's
 * time): the run's job may have passed to another agent by then. A run stopped or cut off
 * mid-flight that lands its result afterwards shows here, whatever its start.
 */
export function lateWrites(runs: StoredRun[], byId: Map<number, RigAssociation>): StoredRun[] {
  return runs.filter((r) => {
    const a = byId.get(r.associationId);
    return a !== undefined && r.started + r.elapsedMs > r.slotMs + a.periodMs;
  });
}
