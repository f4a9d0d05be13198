// runDriver: one driver run for a test, against a simulated device, a recording, or a real
// device. It runs in this process when Node was started with --no-node-snapshot (as
// driverbox's own tests are) and in a short-lived child process otherwise, so a user's test
// runner needs no special flags.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { RecordingFile } from '../contract/recording.js';
import type { DeviceSpec } from '../contract/device.js';
import { DriverboxError, type DriverboxErrorCode } from '../contract/errors.js';
import { createHost, type HostOptions } from '../engine/host.js';
import { type RunRequest } from '../contract/run-request.js';
import type { RunLimits } from '../contract/limits.js';
import type { ResolveOption } from '../contract/run-request.js';
import type { RunResult } from '../contract/run-result.js';
import { builtScriptPath } from '../package-path.js';
import { hasNoNodeSnapshot } from '../platform/node-flags.js';
import type { Fixture, FixtureSpec } from '../simulator/fixture-types.js';
import { startSimulator, type Simulator } from '../simulator/simulator.js';
import type { ChildAnswer, ChildRequest } from './child-runner.js';

export interface RunDriverOptions {
  /** The driver file. */
  path: string;
  /** validate, get_status (default), backup or custom_N. */
  action?: string;
  /** The device; with `simulate`, these fields override the simulator's (e.g. wrong credentials). */
  device?: DeviceSpec;
  /** Driver parameters; with `simulate`, merged over the fixture's. */
  parameters?: Record<string, unknown>;
  limits?: Partial<RunLimits>;
  /** Record headers and bodies in result.http (default 'summary'). */
  transcript?: 'summary' | 'full';
  /** Save the run's device traffic, secrets redacted, to this file (docs/reference/record-replay.md). */
  record?: string;
  /** Answer the run from a recording (a path, or the parsed file) instead of a device. */
  replay?: string | RecordingFile;
  /** Host names dialled at another address (see RunRequest.resolve), e.g. a simulated cloud API. */
  resolve?: ResolveOption;
  /** Extra CAs (PEM) that HTTPS requests and getTLSCertificate trust. */
  trustedCAs?: string[];
  /**
   * Serve this fixture (a path, or a fixture object) as the device for the run: the device,
   * parameters, host names and HTTPS certificate come from it; `device` / `parameters` given
   * here override. The simulator is closed when the run ends. A simulator you started
   * (startSimulator) is used as it is and left running, so its state carries to the next run.
   */
  simulate?: string | Fixture | FixtureSpec | Simulator;
  /** Trust the simulators' HTTPS certificates, as if a CA had issued them (default true). */
  trustSimulators?: boolean;
  /** External hosts (D.createExternalDevice) served by simulators: host name → fixture. */
  simulateHosts?: Record<string, string | Fixture | FixtureSpec | Simulator>;
  /**
   * Run in this process (it must have been started with --no-node-snapshot) or in a child
   * process. Default: in this process when it can.
   */
  inProcess?: boolean;
}

function childRunnerPath(): string {
  return builtScriptPath(new URL('./child-runner.js', import.meta.url), path.join('dist', 'host', 'testing', 'child-runner.js'));
}

function runInChild(request: ChildRequest): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', childRunnerPath()], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let answer: ChildAnswer;
      try {
        answer = JSON.parse(stdout) as ChildAnswer;
      } catch {
        reject(new DriverboxError('SANDBOX_FAILED', `the driver's child process ended (${signal ?? `exit code ${code}`}) without a result${stderr ? `: ${stderr.trim()}` : ''}`));
        return;
      }
      if ('result' in answer) resolve(answer.result as RunResult);
      else reject(new DriverboxError((answer.error.code ?? 'SANDBOX_FAILED') as DriverboxErrorCode, answer.error.message));
    });
    child.stdin.end(JSON.stringify(request));
  });
}

/** Runs one action of a driver and resolves to its RunResult (failures of the driver included). */
export async function runDriver(options: RunDriverOptions): Promise<RunResult> {
  if (!options || typeof options.path !== 'string') throw new DriverboxError('INVALID_OPTIONS', 'runDriver needs { path: "driver.js" }');
  const simulators: Simulator[] = []; // all the run uses
  const started: Simulator[] = []; // those this call started, and closes
  try {
    const hostPins: ResolveOption = {};
    const device = options.simulate === undefined ? null : await start(simulators, started, options.simulate);
    for (const [name, fixture] of Object.entries(options.simulateHosts ?? {})) {
      const sim = await start(simulators, started, fixture);
      // The external host is this simulator, whatever names its fixture gives.
      hostPins[name] = { ip: sim.device.ip, portMap: sim.portMap, onlyMappedPorts: true };
    }
    const pins = Object.assign({}, ...simulators.map((s) => s.resolve), hostPins, options.resolve) as ResolveOption;
    const run: RunRequest = {
      path: path.resolve(options.path),
      action: options.action,
      device: device ? { ...device.device, ...options.device } : options.device,
      parameters: device ? { ...device.parameters, ...options.parameters } : options.parameters,
      limits: options.limits,
      transcript: options.transcript,
      resolve: Object.keys(pins).length ? pins : undefined, // none: a replay uses the recorded run's
      record: options.record === undefined ? undefined : path.resolve(options.record),
      replay: typeof options.replay === 'string' ? path.resolve(options.replay) : options.replay,
    };
    const simulatorCAs = options.trustSimulators === false ? [] : simulators.flatMap((s) => (s.certificatePem ? [s.certificatePem] : []));
    const trustedCAs = [...simulatorCAs, ...(options.trustedCAs ?? [])];
    return await execute(run, { trustedCAs }, options.inProcess ?? hasNoNodeSnapshot());
  } finally {
    await Promise.all(started.map((s) => s.close()));
  }
}

function isSimulator(value: object): value is Simulator {
  return typeof (value as Simulator).close === 'function' && typeof (value as Simulator).httpPort === 'number';
}

async function start(simulators: Simulator[], started: Simulator[], source: string | Fixture | FixtureSpec | Simulator): Promise<Simulator> {
  let sim: Simulator;
  if (typeof source === 'object' && source !== null && isSimulator(source)) {
    sim = source;
  } else {
    sim = await startSimulator(typeof source === 'string' ? path.resolve(source) : source);
    started.push(sim);
  }
  simulators.push(sim);
  return sim;
}

async function execute(run: RunRequest, hostOptions: ChildRequest['host'], inProcess: boolean): Promise<RunResult> {
  if (!inProcess) return runInChild({ host: hostOptions, run });
  const host = createHost({ ...(hostOptions as HostOptions), threads: 1, warmIsolates: 1 });
  try {
    return await host.run(run);
  } finally {
    await host.close();
  }
}
