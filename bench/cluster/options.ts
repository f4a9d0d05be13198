// The rig's command line: which scenarios, the inventory's size and periods, D, and how long each
// phase lasts (real durations by default, --quick for a short pass).
import { intFlag, parseFlags, switchFlag, usage, type FlagHandler } from '../lib/common.js';

export const SCENARIOS = ['kill', 'stop', 'partition', 'redis-restart', 'postgres-restart', 'outage', 'join', 'steady'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface RigOptions {
  scenarios: ScenarioName[];
  /** Associations with the fast period and with the slow one. */
  fastAssociations: number;
  slowAssociations: number;
  fastPeriodS: number;
  slowPeriodS: number;
  runTimeoutS: number;
  /** D (--run-deadline of the agents). */
  runDeadlineS: number;
  /** How long the device takes to answer a poll, ms. */
  deviceMs: number;
  /** Agents in a cluster (join adds one). */
  agents: number;
  /** From the agents' start to the fault. */
  warmupS: number;
  /** After a fault ends: long enough for two slow periods. */
  observeS: number;
  /** SIGSTOP and link-down length. */
  faultS: number;
  /** How long PostgreSQL stays down in postgres-restart. */
  pgDownS: number;
  /** All agents down in outage. */
  outageS: number;
  /** The steady window (each mode). */
  steadyS: number;
  /** steady runs this many times the associations (a load closer to G7's). */
  steadyScale: number;
  /** After the join: the share is read over the last shareS of it. */
  joinS: number;
  shareS: number;
  netns: boolean;
  /** First three octets of the rig's /24. */
  subnet: string;
  /** Keep logs and stores here (default: a temp folder). */
  workDir: string | null;
  json: boolean;
}

export const DEFAULTS: Omit<RigOptions, 'scenarios'> = {
  fastAssociations: 100,
  slowAssociations: 50,
  fastPeriodS: 10,
  slowPeriodS: 60,
  runTimeoutS: 2,
  runDeadlineS: 4,
  deviceMs: 300,
  agents: 3,
  warmupS: 40,
  observeS: 130,
  faultS: 30,
  pgDownS: 10,
  outageS: 300,
  steadyS: 600,
  steadyScale: 4,
  joinS: 120,
  shareS: 60,
  netns: true,
  subnet: '10.231.0',
  workDir: null,
  json: false,
};

/** --quick: the same scenarios on 3 s / 6 s periods and second-long phases (about 6 minutes for all). */
export const QUICK: Partial<RigOptions> = {
  fastAssociations: 24,
  slowAssociations: 12,
  fastPeriodS: 3,
  slowPeriodS: 6,
  runTimeoutS: 1,
  runDeadlineS: 2,
  deviceMs: 100,
  warmupS: 8,
  observeS: 14,
  faultS: 8,
  pgDownS: 4,
  outageS: 15,
  steadyS: 20,
  steadyScale: 1,
  joinS: 24,
  shareS: 12,
};

export const HELP = `node --no-node-snapshot --import tsx bench/cluster/index.ts [--scenario NAME[,NAME…]|all] [options]

The fault rig (docs/architecture/scale-out.md, "The fault rig"): three real driverbox agents on one Redis and one
PostgreSQL, each in its own network namespace where the machine allows, polling a logging device.

  --scenario S        ${SCENARIOS.join('|')}|all (default all; a comma-separated list works)
  --quick             short periods (3 s / 6 s) and phases: a pass of a few minutes
  --fast N / --slow N associations with the fast / slow period (default 100 / 50)
  --fast-period S / --slow-period S   (default 10 / 60)
  --run-timeout S / --run-deadline S  (default 2 / 4: D < every period)
  --device-ms MS      the device's answer delay (default 300)
  --warmup S          before a fault (default 40)   --observe S  after it (default 130)
  --fault S           SIGSTOP / link-down length (default 30)
  --pg-down S         PostgreSQL down time (default 10)
  --outage S          all agents down (default 300)
  --steady S          the steady window, per mode (default 600: G3's 10 minutes)
  --steady-scale N    steady runs N × the associations (default 4)
  --join S / --share S  after the join; shares over its last S (default 120 / 60)
  --no-netns          agents on loopback in the host's namespace
  --subnet A.B.C      the rig's /24 (default 10.231.0)
  --dir PATH          keep logs and results here
  --json              print the results as JSON too`;

export function parseRigOptions(argv: string[]): RigOptions {
  const quick = argv.includes('--quick');
  const options: RigOptions = { ...DEFAULTS, ...(quick ? QUICK : {}), scenarios: [...SCENARIOS] };
  const scenario: FlagHandler<RigOptions> = (o, value, flag) => {
    const text = value();
    if (!text) usage(`${flag} needs a value`);
    if (text === 'all') return void (o.scenarios = [...SCENARIOS]);
    const names = text.split(',').map((s) => s.trim());
    for (const name of names) if (!(SCENARIOS as readonly string[]).includes(name)) usage(`unknown scenario ${JSON.stringify(name)}: ${SCENARIOS.join(', ')} or all`);
    o.scenarios = names as ScenarioName[];
  };
  const text =
    (key: 'subnet' | 'workDir'): FlagHandler<RigOptions> =>
    (o, value, flag) => {
      const v = value();
      if (!v) usage(`${flag} needs a value`);
      (o as unknown as Record<string, string>)[key] = v;
    };
  parseFlags<RigOptions>(
    argv,
    options,
    {
      '--scenario': scenario,
      '--quick': () => undefined,
      '--fast': intFlag('fastAssociations', true),
      '--slow': intFlag('slowAssociations', true),
      '--fast-period': intFlag('fastPeriodS'),
      '--slow-period': intFlag('slowPeriodS'),
      '--run-timeout': intFlag('runTimeoutS'),
      '--run-deadline': intFlag('runDeadlineS'),
      '--device-ms': intFlag('deviceMs', true),
      '--warmup': intFlag('warmupS'),
      '--observe': intFlag('observeS'),
      '--fault': intFlag('faultS'),
      '--pg-down': intFlag('pgDownS'),
      '--outage': intFlag('outageS'),
      '--steady': intFlag('steadyS'),
      '--steady-scale': intFlag('steadyScale'),
      '--join': intFlag('joinS'),
      '--share': intFlag('shareS'),
      '--no-netns': switchFlag('netns', false),
      '--subnet': text('subnet'),
      '--dir': text('workDir'),
      '--json': switchFlag('json'),
    },
    HELP,
  );
  if (!/^10\.\d{1,3}\.\d{1,3}$/.test(options.subnet)) usage('--subnet must be 10.B.C (a private /24 the rig makes)');
  if (options.runDeadlineS >= Math.min(options.fastPeriodS, options.slowPeriodS)) usage('--run-deadline must be shorter than every period (D < period)');
  if (options.runDeadlineS < options.runTimeoutS) usage('--run-deadline must be at least --run-timeout');
  if (options.fastAssociations + options.slowAssociations === 0) usage('no associations');
  if (options.shareS > options.joinS) usage('--share must not exceed --join');
  return options;
}
