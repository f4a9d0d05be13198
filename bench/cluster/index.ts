// The fault rig (issue 22 item 6): three real `driverbox agent --queue … --store postgres://…`
// processes, each in its own network namespace where the machine allows, one throwaway Redis and
// PostgreSQL, a logging device; scenarios kill, stop, cut, restart and join, and check the
// scale-out goals (../shared/SCALE-OUT.md 4.5, docs/architecture/scale-out.md "The fault rig").
//
// Run:  npm run bench:cluster -- --scenario all          (real durations: about 50 minutes)
//       npm run bench:cluster -- --scenario kill --quick  (about a minute)
// Traffic stays on loopback and inside the namespaces the rig makes (10.231.0.0/24 by default);
// every namespace and link is removed on exit, on failure and on SIGINT.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureHostBuild, runBench } from '../lib/common.js';
import { parseRigOptions, type RigOptions } from './options.js';
import { allMet, formatScenario, formatSummary, type ScenarioResult } from './report.js';
import { Rig } from './rig.js';
import { runScenario } from './scenarios.js';

export { parseRigOptions, Rig, runScenario };
export type { RigOptions, ScenarioResult };

/** Starts the rig, runs the scenarios one after the other, always cleans up. */
export async function runRig(options: RigOptions, print: (text: string) => void = (t) => process.stdout.write(`${t}\n`)): Promise<ScenarioResult[]> {
  const rig = await Rig.start(options);
  const onSignal = (signal: NodeJS.Signals) => {
    print(`\n${signal}: cleaning up (agents, servers, namespaces)…`);
    rig.emergencyCleanup();
    void rig.close().finally(() => process.exit(130));
  };
  const onExit = () => rig.emergencyCleanup();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', onExit);
  const results: ScenarioResult[] = [];
  try {
    print(
      `fault rig: ${options.fastAssociations} associations every ${options.fastPeriodS} s + ${options.slowAssociations} every ${options.slowPeriodS} s, ` +
        `D ${options.runDeadlineS} s (run timeout ${options.runTimeoutS} s), device answers in ${options.deviceMs} ms, ${options.agents} agents\n` +
        (rig.network.isolated
          ? `network: one namespace per agent on ${rig.network.subnet} (servers and device on ${rig.network.hostAddress})`
          : `network: loopback, no namespaces (${rig.network.reason})`) +
        `\nlogs: ${rig.dir}`,
    );
    for (const name of options.scenarios) {
      print(`\n--- ${name} (started ${new Date().toISOString()})`);
      const result = await runScenario(rig, name);
      results.push(result);
      print(formatScenario(result));
      writeFileSync(path.join(rig.dir, 'results.json'), JSON.stringify(results, null, 2));
    }
    if (results.length > 1) print(formatSummary(results));
    return results;
  } finally {
    await rig.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('exit', onExit);
  }
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
if (isMain) {
  runBench('bench/cluster', async () => {
    const options = parseRigOptions(process.argv.slice(2));
    ensureHostBuild();
    const results = await runRig(options);
    if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return allMet(results) ? 0 : 1;
  });
}
