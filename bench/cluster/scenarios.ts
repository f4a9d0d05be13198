// The scenarios: each starts a fresh cluster (database, Redis, agents), lets it settle, applies its
// fault, watches, and checks its targets (docs/architecture/scale-out.md, "The fault rig"; ../shared/SCALE-OUT.md
// 4.5). G1 is checked in every one: no (association, slot) stored twice, none polled twice.
import { openDatabase } from '../../host/store/db/better-sqlite3.js';
import { sleep, sumCounter, type AgentProcess } from './agents.js';
import {
  coverage,
  doublePolls,
  largestGaps,
  lateWrites,
  latenessOf,
  misalignedRuns,
  pollSlots,
  shares,
  staleStarts,
  type PolledSlot,
} from './analysis.js';
import { cpuSpent, readCpu, readSandboxCpu, type CpuTargets } from './cpu.js';
import { commandsPerRun, readCommandCalls } from './redis-commands.js';
import { readStatementStats, resetStatementStats, statementsPerRun } from './pg-statements.js';
import type { ScenarioName } from './options.js';
import { check, type Check, type ScenarioResult } from './report.js';
import type { Cluster, Rig, RigAssociation, StoredRun } from './rig.js';

interface Readout {
  runs: StoredRun[];
  associations: RigAssociation[];
  byId: Map<number, RigAssociation>;
  polled: PolledSlot[];
}

async function readOut(cluster: Cluster): Promise<Readout> {
  const runs = await cluster.runs();
  const map = await cluster.associations();
  const associations = [...map.values()];
  const polled = pollSlots(cluster.rig.device.polls, map, (address) => cluster.rig.network.agentOfAddress(address));
  return { runs, associations, byId: new Map(associations.map((a) => [a.id, a])), polled };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;

/** G1 and the start rule, for any scenario. */
async function g1(cluster: Cluster, out: Readout, figures: [string, string][], notes: string[]): Promise<Check[]> {
  const stored = await cluster.storedDuplicates();
  const doubles = doublePolls(out.polled);
  const refused = sumCounter(cluster.agents, 'refused_duplicate');
  const late = staleStarts(out.runs, out.byId, cluster.rig.options.runDeadlineS * 1000);
  const stale = staleStarts(out.runs, out.byId, 0);
  const misaligned = misalignedRuns(out.runs, out.byId);
  figures.push(
    ['runs stored', String(out.runs.length)],
    ['device polls', String(out.polled.length)],
    ['refused duplicate writes (agents /metrics)', String(refused)],
    ['skipped late (agents /metrics)', String(sumCounter(cluster.agents, 'skipped_late'))],
    ['stalled re-queued (agents /metrics)', String(sumCounter(cluster.agents, 'stalled_requeue'))],
    ['stored start past slot + period − D', `${late.length}${late.length ? ` (by ${Math.max(...late.map((r) => r.started - r.slotMs - out.byId.get(r.associationId)!.periodMs + cluster.rig.options.runDeadlineS * 1000))} ms at most)` : ''}`],
  );
  if (late.length) notes.push("a stored start (runs.started) is the write's time minus the run's duration: a result whose write waited (store cut off or slow) shows a start later than the real one");
  if (misaligned) notes.push(`${misaligned} stored slot(s) are not k × period + offset: the device's slot inference is off for them`);
  for (const d of doubles.slice(0, 5)) notes.push(`association ${d.associationId} slot ${new Date(d.slotMs).toISOString()} polled ${d.agents.length}× by ${d.agents.map((a) => a ?? '?').join(', ')}`);
  return [
    check('G1 stored', 'duplicate stored results = 0', String(stored), stored === 0),
    check('G1 device', 'slots polled twice = 0', String(doubles.length), doubles.length === 0),
    check('stale start', "runs started after their successor's slot (slot + period) = 0", String(stale.length), stale.length === 0),
    check('late write', "results committed after their successor's slot = 0", lateList(out, lateWrites(out.runs, out.byId)), lateWrites(out.runs, out.byId).length === 0),
  ];
}

function lateList(out: Readout, runs: StoredRun[]): string {
  if (runs.length === 0) return '0';
  const worst = Math.max(...runs.map((r) => r.started + r.elapsedMs - r.slotMs));
  return `${runs.length} (by ${[...new Set(runs.map((r) => r.runner ?? '?'))].join(', ')}; up to ${s(worst)} after the slot)`;
}

async function settled(rig: Rig, name: string, agents = rig.options.agents, scale = 1): Promise<Cluster> {
  const cluster = await rig.newCluster(name, scale);
  await cluster.startAgents(agents);
  cluster.startScraper();
  await sleep(rig.options.warmupS * 1000);
  await cluster.scrapeAll();
  return cluster;
}

/** Coverage of due slots between two times, for a figure line. */
function coverageLine(out: Readout, fromMs: number, toMs: number): { text: string; missing: number; due: number } {
  const c = coverage(out.runs, out.associations, fromMs, toMs);
  return { text: `${c.stored}/${c.due} due slots stored (${c.missing.length} missing, ${c.stored - c.succeeded} failed)`, missing: c.missing.length, due: c.due };
}

/** The period of the association with this ID. */
const periodOf = (out: Readout, id: number) => out.byId.get(id)?.periodMs ?? NaN;

// ---------------------------------------------------------------------------- kill

async function killScenario(rig: Rig): Promise<ScenarioResult> {
  const o = rig.options;
  const figures: [string, string][] = [];
  const notes: string[] = [];
  const cluster = await settled(rig, 'kill');
  try {
    const victim = cluster.agent('a2');
    // With namespaces the kill lands while the victim's poll waits for the device's answer: a run
    // is in flight for sure. On loopback the device cannot tell who polls: any moment.
    if (rig.network.isolated) {
      const address = victim.spec.net.address;
      const poll = await rig.device.nextPoll((p) => p.from.replace(/^::ffff:/, '') === address, o.slowPeriodS * 1000);
      if (!poll) notes.push('the victim polled nothing for a whole slow period before the kill');
    }
    const killAt = Date.now();
    await victim.kill();
    await sleep(o.observeS * 1000);
    await cluster.scrapeAll();
    const out = await readOut(cluster);
    const stored = new Map(out.runs.map((r) => [`${r.associationId}@${r.slotMs}`, r]));
    const D = o.runDeadlineS * 1000;
    // In flight at the kill: polled by the victim (or, on loopback, by anyone) in the last D before
    // it, and not stored by the victim.
    const inFlight = new Map<string, { associationId: number; slotMs: number }>();
    for (const p of out.polled) {
      if (p.at < killAt - D || p.at > killAt) continue;
      const run = stored.get(`${p.associationId}@${p.slotMs}`);
      const byVictim = rig.network.isolated ? p.agent === 'a2' && (!run || run.runner !== 'a2') : !run || (run.runner !== 'a2' && run.started > killAt);
      if (byVictim) inFlight.set(`${p.associationId}@${p.slotMs}`, { associationId: p.associationId, slotMs: p.slotMs });
    }
    const flights = [...inFlight.values()];
    const rerun = flights.filter((f) => stored.has(`${f.associationId}@${f.slotMs}`)).length;
    const resumed = flights.filter((f) => stored.has(`${f.associationId}@${f.slotMs + periodOf(out, f.associationId)}`)).length;
    const inFlightIds = new Set(flights.map((f) => f.associationId));
    let worst = { id: 0, over: -Infinity, gap: 0, period: 0 };
    for (const a of out.associations) {
      if (inFlightIds.has(a.id)) continue;
      const gap = largestGaps(out.runs.filter((r) => r.associationId === a.id), killAt - a.periodMs - 1000, Date.now()).get(a.id) ?? Infinity;
      if (gap - a.periodMs > worst.over) worst = { id: a.id, over: gap - a.periodMs, gap, period: a.periodMs };
    }
    const after = out.runs.filter((r) => r.started > killAt + 1000);
    const byVictimAfter = after.filter((r) => r.runner === 'a2').length;
    const runnersAfter = shares(after);
    const lost = coverageLine(out, killAt - D, Date.now() - o.slowPeriodS * 1000);
    figures.push(
      ['in flight on the victim at the kill', `${flights.length} (re-run ${rerun}, lost ${flights.length - rerun})`],
      ['worst gap between started slots (others)', worst.id ? `${s(worst.gap)} (association ${worst.id}, period ${s(worst.period)})` : 'none'],
      ['runs after the kill by runner', [...runnersAfter].map(([r, n]) => `${r} ${n}`).join(', ')],
      ['slots from the kill on', lost.text],
    );
    const checks = [
      check('G2 gaps', 'every other association: gap ≤ period + 1 s', worst.id ? `worst period + ${s(worst.over)}` : 'no runs', worst.id !== 0 && worst.over <= 1000),
      check('G2 in-flight', "killed agent's in-flight associations run their next slot", flights.length ? `${resumed}/${flights.length}` : 'none in flight', flights.length === 0 ? null : resumed === flights.length),
      check('G2 survivors', 'no run by the killed agent after the kill; survivors take every association', `${byVictimAfter} by a2; ${new Set(after.map((r) => r.associationId)).size}/${out.associations.length} associations ran`, byVictimAfter === 0 && new Set(after.map((r) => r.associationId)).size === out.associations.length),
      ...(await g1(cluster, out, figures, notes)),
    ];
    return { scenario: 'kill', seconds: 0, figures, checks, notes };
  } finally {
    await cluster.stopAll();
  }
}

// ---------------------------------------------------------------------------- stop / partition

async function pauseScenario(rig: Rig, kind: 'stop' | 'partition'): Promise<ScenarioResult> {
  const o = rig.options;
  const figures: [string, string][] = [];
  const notes: string[] = [];
  if (kind === 'partition' && !rig.network.isolated) {
    return { scenario: kind, seconds: 0, figures, checks: [check('G5 partition', 'link down 30 s', `skipped: no namespaces (${rig.network.reason})`, null)], notes };
  }
  const cluster = await settled(rig, kind);
  try {
    const victim = cluster.agent('a2');
    const before = { ...victim.lastCounters };
    // The fault lands while one of the victim's polls waits for the device's answer.
    const address = victim.spec.net.address;
    if (rig.network.isolated && !(await rig.device.nextPoll((p) => p.from.replace(/^::ffff:/, '') === address, o.slowPeriodS * 1000))) {
      notes.push('the victim polled nothing for a whole slow period before the fault');
    }
    const faultAt = Date.now();
    if (kind === 'stop') victim.signal('SIGSTOP');
    else rig.network.setLinkDown(2, true);
    await sleep(o.faultS * 1000);
    const resumeAt = Date.now();
    if (kind === 'stop') victim.signal('SIGCONT');
    else rig.network.setLinkDown(2, false);
    await sleep(o.observeS * 1000);
    await cluster.scrapeAll();
    const out = await readOut(cluster);
    const D = o.runDeadlineS * 1000;
    const staleAfter = staleStarts(out.runs, out.byId, 0).filter((r) => r.started >= resumeAt);
    const lateAfter = staleStarts(out.runs, out.byId, D).filter((r) => r.started >= resumeAt);
    const victimSkipped = (victim.lastCounters.skipped_late ?? 0) - (before.skipped_late ?? 0);
    const victimRunsAfter = out.runs.filter((r) => r.runner === 'a2' && r.started > resumeAt).length;
    const victimWritesDuring = out.runs.filter((r) => r.runner === 'a2' && r.started < faultAt && r.started + r.elapsedMs > faultAt).length;
    const pollsAtResume = out.polled.filter((p) => p.agent === 'a2' && p.at >= resumeAt && p.at < resumeAt + D).length;
    const during = coverageLine(out, faultAt - D, resumeAt + D);
    const whole = coverageLine(out, faultAt - o.warmupS * 1000 + o.slowPeriodS * 1000, Date.now() - o.slowPeriodS * 1000);
    figures.push(
      [`slots during the ${kind} (±D)`, during.text],
      ['slots over the scenario', whole.text],
      ["victim's skipped late since the fault", String(victimSkipped)],
      ["victim's runs after resume", String(victimRunsAfter)],
      ['victim runs in flight at the fault that were stored', String(victimWritesDuring)],
      ['victim polls in the first D after resume (namespaces)', rig.network.isolated ? String(pollsAtResume) : 'n/a'],
    );
    const checks = [
      check('G5 no stale start', "after resume no run of a slot whose successor began", `${staleAfter.length} stale (${lateAfter.length} past slot + P − D); victim skipped-late ${victimSkipped}`, staleAfter.length === 0),
      ...(await g1(cluster, out, figures, notes)),
    ];
    return { scenario: kind, seconds: 0, figures, checks, notes };
  } finally {
    if (kind === 'partition') rig.network.setLinkDown(2, false);
    await cluster.stopAll();
  }
}

// ---------------------------------------------------------------------------- server restarts

async function serverRestartScenario(rig: Rig, which: 'redis-restart' | 'postgres-restart'): Promise<ScenarioResult> {
  const o = rig.options;
  const figures: [string, string][] = [];
  const notes: string[] = [];
  const cluster = await settled(rig, which);
  try {
    const downAt = Date.now();
    if (which === 'redis-restart') {
      await rig.redis.restart();
    } else {
      // Fast shutdown by signal (pg_ctl stop would block this process, and the device with it).
      const pid = rig.postgres.pid();
      if (pid) process.kill(pid, 'SIGINT');
      while (pid && rig.postgres.pid() !== undefined) await sleep(100);
      await sleep(o.pgDownS * 1000);
      const t = Date.now();
      rig.postgres.start();
      notes.push(`pg_ctl start held the rig's event loop (and the device's clock) ${Date.now() - t} ms`);
    }
    const upAt = Date.now();
    await sleep(o.observeS * 1000);
    await cluster.scrapeAll();
    const out = await readOut(cluster);
    const D = o.runDeadlineS * 1000;
    const around = coverageLine(out, downAt - D, upAt + D);
    const afterFrom = upAt + o.fastPeriodS * 1000;
    const after = coverageLine(out, afterFrom, Date.now() - o.slowPeriodS * 1000);
    const ranAfter = new Set(out.runs.filter((r) => r.slotMs >= upAt).map((r) => r.associationId)).size;
    figures.push(
      ['down for', s(upAt - downAt)],
      ['slots around the restart (down − D … up + D): lost', `${around.missing} of ${around.due}`],
      [`slots from up + ${o.fastPeriodS} s on`, after.text],
      ['associations that ran after', `${ranAfter}/${out.associations.length}`],
    );
    const checks = [
      check('runs continue', 'every association runs after; due slots stored after up + one period', `${ranAfter}/${out.associations.length}; ${after.missing} missing after`, ranAfter === out.associations.length && after.missing === 0),
      check('loss', 'counted', `${around.missing} slot(s) lost around the restart`, null),
      ...(await g1(cluster, out, figures, notes)),
    ];
    return { scenario: which, seconds: 0, figures, checks, notes };
  } finally {
    await cluster.stopAll();
  }
}

// ---------------------------------------------------------------------------- outage

async function outageScenario(rig: Rig): Promise<ScenarioResult> {
  const o = rig.options;
  const figures: [string, string][] = [];
  const notes: string[] = [];
  const cluster = await settled(rig, 'outage');
  try {
    const downAt = Date.now();
    await Promise.all(cluster.liveAgents().map((a) => a.kill()));
    await sleep(o.outageS * 1000);
    const upAt = Date.now();
    const restarted = await cluster.startAgents(o.agents);
    const readyAt = Math.max(...restarted.map((a) => a.readyAt ?? upAt));
    await sleep(o.observeS * 1000);
    await cluster.scrapeAll();
    const out = await readOut(cluster);
    const catchUp = new Map<number, number>();
    for (const r of out.runs) if (r.slotMs < upAt && r.started >= upAt) catchUp.set(r.associationId, (catchUp.get(r.associationId) ?? 0) + 1);
    const maxCatchUp = Math.max(0, ...catchUp.values());
    const totalCatchUp = [...catchUp.values()].reduce((a, b) => a + b, 0);
    const duringOutage = out.runs.filter((r) => r.started > downAt + o.runDeadlineS * 1000 && r.started < upAt).length;
    const after = coverageLine(out, readyAt + o.fastPeriodS * 1000, Date.now() - o.slowPeriodS * 1000);
    const skippedNew = restarted.reduce((sum, a) => sum + (a.lastCounters.skipped_late ?? 0), 0);
    figures.push(
      ['outage', s(upAt - downAt)],
      ['agents ready after restart', s(readyAt - upAt)],
      ['catch-up runs (slot before restart, started after)', `${totalCatchUp} in ${catchUp.size} association(s), max ${maxCatchUp} per association`],
      ['skipped late after restart', String(skippedNew)],
      ['runs stored during the outage', String(duringOutage)],
      ['due slots after restart + one fast period', after.text],
    );
    const checks = [
      check('G6 no pile-up', '≤ 1 catch-up run per association', `max ${maxCatchUp}`, maxCatchUp <= 1),
      check('G6 resumes', 'due slots after restart stored', `${after.missing} missing of ${after.due}`, after.missing === 0),
      ...(await g1(cluster, out, figures, notes)),
    ];
    return { scenario: 'outage', seconds: 0, figures, checks, notes };
  } finally {
    await cluster.stopAll();
  }
}

// ---------------------------------------------------------------------------- join

async function joinScenario(rig: Rig): Promise<ScenarioResult> {
  const o = rig.options;
  const figures: [string, string][] = [];
  const notes: string[] = [];
  const cluster = await settled(rig, 'join');
  try {
    const joinAt = Date.now();
    const fourth = await cluster.startAgent(o.agents + 1);
    const readyAt = fourth.readyAt ?? Date.now();
    await sleep(o.joinS * 1000 - (Date.now() - joinAt));
    await cluster.scrapeAll();
    const out = await readOut(cluster);
    const name = fourth.name;
    const firstRun = Math.min(...out.runs.filter((r) => r.runner === name).map((r) => r.started));
    const firstPoll = Math.min(...out.polled.filter((p) => p.agent === name).map((p) => p.at));
    const first = Math.min(firstRun, firstPoll);
    const windowFrom = joinAt + (o.joinS - o.shareS) * 1000;
    const windowRuns = out.runs.filter((r) => r.started >= windowFrom && r.started <= joinAt + o.joinS * 1000);
    const n = o.agents + 1;
    const { text, worst } = agentShares(windowRuns, n);
    figures.push(
      ['4th agent: spawn → ready', s(readyAt - joinAt)],
      ['4th agent: ready → first job', Number.isFinite(first) ? `${first - readyAt} ms` : 'never'],
      [`shares over the last ${o.shareS} s (${windowRuns.length} runs)`, text],
    );
    const checks = [
      check('G4 first job', '≤ 2 s after it is ready', Number.isFinite(first) ? `${first - readyAt} ms (${first - joinAt} ms after spawn)` : 'never', Number.isFinite(first) && first - readyAt <= 2000),
      check('G4 share', `each within ±20 % of 1/${n}`, `worst ${(worst * 100).toFixed(1)} % off`, worst <= 0.2),
      ...(await g1(cluster, out, figures, notes)),
    ];
    return { scenario: 'join', seconds: 0, figures, checks, notes };
  } finally {
    await cluster.stopAll();
  }
}

/** Each of the agents a1…an's share of the runs, and the worst one's distance from 1/n (0.2: 20 % off). */
function agentShares(runs: StoredRun[], n: number): { text: string; worst: number } {
  const counts = shares(runs);
  const shareOf = (agent: string) => (counts.get(agent) ?? 0) / Math.max(1, runs.length);
  const names = Array.from({ length: n }, (_, i) => `a${i + 1}`);
  return {
    text: names.map((a) => `${a} ${pct(shareOf(a))}`).join(', '),
    worst: Math.max(...names.map((a) => Math.abs(shareOf(a) * n - 1))),
  };
}

// ---------------------------------------------------------------------------- steady

function embeddedRunsBetween(sqlite: string, fromMs: number, toMs: number): number {
  const db = openDatabase(sqlite, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT count(*) AS n FROM runs WHERE started >= ? AND started < ? AND outcome = 'success'").get(fromMs, toMs) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

async function steadyScenario(rig: Rig): Promise<ScenarioResult> {
  const o = rig.options;
  const figures: [string, string][] = [];
  const notes: string[] = [];
  const cluster = await settled(rig, 'steady', rig.options.agents, rig.options.steadyScale);
  let checks: Check[] = [];
  let perRunScaleOut = NaN;
  let split: Record<string, number> = {};
  try {
    const targets: Record<string, CpuTargets> = {
      agents: { groups: cluster.liveAgents().map((a) => a.pid), trees: [] },
      redis: { groups: [], trees: [rig.redis.pid] },
      postgres: { groups: [], trees: [rig.postgres.pid() ?? -1] },
    };
    const commands0 = await readCommandCalls(rig.redis.port);
    const adminUrl = rig.postgres.urlOf('postgres').replace(rig.network.hostAddress, '127.0.0.1');
    await resetStatementStats(adminUrl);
    const cpu0 = readCpu(targets);
    const sandbox0 = readSandboxCpu(targets.agents!.groups);
    const t0 = Date.now();
    await sleep(o.steadyS * 1000);
    const t1 = Date.now();
    split = cpuSpent(cpu0, readCpu(targets));
    const sandboxMs = readSandboxCpu(targets.agents!.groups) - sandbox0;
    const commands1 = await readCommandCalls(rig.redis.port);
    const statements = await readStatementStats(adminUrl, new URL(cluster.storeUrl).pathname.slice(1));
    await sleep(o.runDeadlineS * 1000 + 1000);
    await cluster.scrapeAll();
    const out = await readOut(cluster);
    const inWindow = out.runs.filter((r) => r.slotMs >= t0 && r.slotMs < t1);
    const late = latenessOf(inWindow);
    const c = coverage(out.runs, out.associations, t0, t1);
    const completedInWindow = out.runs.filter((r) => r.started >= t0 && r.started < t1 && r.outcome === 'success').length;
    const steadyShares = agentShares(out.runs.filter((r) => r.started >= t0 && r.started < t1), o.agents);
    const cpuTotal = split.agents! + split.redis! + split.postgres!;
    perRunScaleOut = cpuTotal / Math.max(1, completedInWindow);
    figures.push(
      ['window', `${s(t1 - t0)}, ${(completedInWindow / ((t1 - t0) / 1000)).toFixed(1)} runs/s`],
      ['start lateness (started − slot)', `p50 ${late.p50} ms, p99 ${late.p99} ms, max ${late.max} ms over ${late.count} runs`],
      ['due slots stored / succeeded', `${c.stored}/${c.due} stored, ${c.succeeded} succeeded`],
      ['shares of the runs', steadyShares.text],
      ['CPU (scale-out)', `agents ${Math.round(split.agents!)} ms (of which sandbox processes ${Math.round(sandboxMs)} ms), Redis ${Math.round(split.redis!)} ms, PostgreSQL ${Math.round(split.postgres!)} ms`],
      ['CPU per run (scale-out)', `${perRunScaleOut.toFixed(2)} ms over ${completedInWindow} runs`],
      ['Redis commands', commandsPerRun(commands0, commands1, completedInWindow)],
      ['PostgreSQL statements', statementsPerRun(statements, completedInWindow)],
    );
    checks = [
      check('G3 lateness', 'p99 start − slot ≤ 250 ms', `${late.p99} ms`, late.p99 <= 250),
      check('G3 completion', '≥ 99.9 % of due runs completed', pct(c.succeeded / Math.max(1, c.due)), c.succeeded / Math.max(1, c.due) >= 0.999),
      check('G4 share (steady)', `each within ±20 % of 1/${o.agents}`, `worst ${(steadyShares.worst * 100).toFixed(1)} % off`, steadyShares.worst <= 0.2),
      ...(await g1(cluster, out, figures, notes)),
    ];
  } finally {
    await cluster.stopAll();
  }

  // The same inventory, the same duration, one embedded agent on SQLite.
  const { agent, sqlite } = await cluster.startEmbedded();
  try {
    await sleep(o.warmupS * 1000);
    const targets = { agent: { groups: [agent.pid], trees: [] } };
    const cpu0 = readCpu(targets);
    const sandbox0 = readSandboxCpu([agent.pid]);
    const t0 = Date.now();
    await sleep(o.steadyS * 1000);
    const t1 = Date.now();
    const spent = cpuSpent(cpu0, readCpu(targets)).agent!;
    const sandboxMs = readSandboxCpu([agent.pid]) - sandbox0;
    await sleep(o.runTimeoutS * 1000 + 1000);
    const runs = embeddedRunsBetween(sqlite, t0, t1);
    const perRunEmbedded = spent / Math.max(1, runs);
    const ratio = perRunScaleOut / perRunEmbedded;
    figures.push(
      [
        'CPU per run (embedded, SQLite)',
        `${perRunEmbedded.toFixed(2)} ms over ${runs} runs, ${(runs / ((t1 - t0) / 1000)).toFixed(1)} runs/s (${Math.round(spent)} ms, of which its sandbox process ${Math.round(sandboxMs)} ms)`,
      ],
      ['CPU per run scale-out / embedded', `${ratio.toFixed(2)}×`],
    );
    checks.push(check('G7 CPU per run', '≤ 2× embedded', `${perRunScaleOut.toFixed(2)} vs ${perRunEmbedded.toFixed(2)} ms = ${ratio.toFixed(2)}×`, ratio <= 2));
  } finally {
    await agent.stop();
  }
  return { scenario: 'steady', seconds: 0, figures, checks, notes };
}

// ---------------------------------------------------------------------------- dispatch

export async function runScenario(rig: Rig, name: ScenarioName): Promise<ScenarioResult> {
  const started = Date.now();
  const result = await (() => {
    switch (name) {
      case 'kill':
        return killScenario(rig);
      case 'stop':
      case 'partition':
        return pauseScenario(rig, name);
      case 'redis-restart':
      case 'postgres-restart':
        return serverRestartScenario(rig, name);
      case 'outage':
        return outageScenario(rig);
      case 'join':
        return joinScenario(rig);
      case 'steady':
        return steadyScenario(rig);
    }
  })();
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

export type { AgentProcess };
