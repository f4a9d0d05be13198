// Entry of the runtime bundle. Evaluated in every run's fresh context: it leaves one
// install function, which the host calls with its bridge Reference and the run's config.
import { createBackupFactory } from './backup';
import { createBridge, type HostCall } from './bridge';
import { createConsole } from './console';
import { errorType, valueType } from './constants';
import { createCrypto } from './crypto';
import { createDevice, createExternalDeviceFactory } from './device';
import { createLazyLibs } from './lazy-libs';
import type { DispatchKind, SandboxConfig } from './protocol';
import { createRunEnder } from './run-end';
import { createScheduler, installScheduler } from './scheduler';
import { installTimers } from './timers';
import { createMetricFactory } from './metrics';
import { Table } from './tables';
import { createTftpServer } from './tftp';
import { createVariableFactory } from './variables';
import { createWarn } from './warnings';
import { hasOwn, weakSetAdd, weakSetHas } from './intrinsics';
import { runDriverCode } from './driver-code';
import { joinText } from './intrinsics';
import { driverError, installStackFormat, setDriverFilename } from './error-text';
import { removeUnsupported } from './unsupported';

type BufferApi = { Buffer: { from(...a: unknown[]): never; alloc(...a: unknown[]): never; concat(...a: unknown[]): never; isBuffer(x: unknown): boolean } };

function install(hostCall: HostCall, configJson: string): (kind: DispatchKind, id: number, json: string) => string {
  const g = globalThis as Record<string, unknown>;
  delete g.__driverboxInstall;
  // The driver's code, as a function (host/driver/wrap.ts), taken before any driver code runs.
  const code = g.__driverboxCode;
  delete g.__driverboxCode;
  removeUnsupported(g);
  const config = JSON.parse(configJson) as SandboxConfig;
  const filename = config.driverFilename;
  setDriverFilename(filename);
  installStackFormat(filename);
  const bridge = createBridge(hostCall);
  const warn = createWarn(bridge);
  const lib = createLazyLibs(bridge);
  const logs = createConsole(bridge, config.limits.maxLogChars);
  const console = logs.console;
  const ender = createRunEnder(bridge, warn, config.limits.maxVariables, config.driverFilename, logs.flush);
  // Errors thrown to stop a driver after a refusal already ended the run are not news.
  const refusals = new WeakSet<object>(); // through the saved WeakSet methods only
  bridge.onUncaught((error) => {
    if (!(typeof error === 'object' && error !== null && weakSetHas(refusals, error))) ender.uncaught(error);
  });
  const scheduler = createScheduler(bridge, config.limits.maxTimers);
  installScheduler(scheduler);
  installTimers(g, scheduler);

  const createVariable = createVariableFactory(warn);
  const bufferApi = () => lib<BufferApi>('buffer').Buffer;
  // D._unsafe.buffer: failures are logged and answered with undefined, as drivers expect.
  const safeBuffer = (name: 'from' | 'alloc' | 'concat') =>
    function (...args: unknown[]) {
      try {
        return (bufferApi()[name] as (...a: unknown[]) => unknown)(...args);
      } catch (error) {
        console.error(`Error in D._unsafe.buffer.${name}: ${(error as Error).message}`);
        return undefined;
      }
    };
  const parameters = config.parameters;

  const D: Record<string, unknown> = {
    errorType,
    valueType,
    success: ender.success,
    failure: ender.failure,
    createVariable,
    createMetric: createMetricFactory(createVariable),
    createBackup: createBackupFactory(warn),
    tftpServer: createTftpServer(bridge),
    createTable: (label: unknown, headers: unknown) => new Table(label, headers, config.limits.maxTableRows, warn),
    getParameter(name: unknown) {
      const key = String(name);
      if (!hasOwn(parameters, key)) {
        warn(`D.getParameter("${key}"): no such parameter was given to this run; returned undefined`);
        return undefined;
      }
      return parameters[key];
    },
    device: createDevice(bridge, config.device, createVariable, bufferApi),
    createExternalDevice: createExternalDeviceFactory(bridge, bufferApi),
    // A Buffer can only exist once the buffer library is loaded; cheerio's bundle has none (libs/buffer-global.ts).
    htmlParse: (content: unknown, options?: unknown, isDocument?: unknown) =>
      lib<{ load(c: unknown, o?: unknown, d?: unknown): unknown }>('cheerio').load(
        lib.loaded('buffer') && bufferApi().isBuffer(content) ? String(content) : content,
        options,
        isDocument,
      ),
    crypto: createCrypto(bridge, bufferApi),
    math: {
      percent(actual: unknown, maximum: unknown): number {
        const a = parseInt(String(actual), 10);
        const m = parseInt(String(maximum), 10);
        return Math.round((10000 * a) / m) / 100;
      },
    },
    _unsafe: { buffer: { from: safeBuffer('from'), alloc: safeBuffer('alloc'), concat: safeBuffer('concat') } },
  };
  Object.defineProperty(D, 'q', { enumerable: true, get: () => lib('q') });
  Object.defineProperty(D, '_', { enumerable: true, get: () => lib('lodash') });

  // import statements and import() never get this far: the host refuses them before the run.
  const refuseRequire = function (name?: unknown): never {
    const message = `require(${JSON.stringify(name) ?? ''}) is not allowed in a driver: everything a driver may use is on D`;
    console.error(message);
    ender.fail(errorType.REQUIRE_NOT_ALLOWED, message);
    const error = driverError(new Error(message), filename);
    weakSetAdd(refusals, error);
    throw error;
  };

  g.D = D;
  g.console = console;
  g.require = refuseRequire;

  bridge.onRun(() => {
    const { entry, defined } = runDriverCode(code, config.action);
    if (ender.ended()) return; // the top level ended the run (D.success, D.failure, require…)
    if (!entry) {
      ender.fail(
        errorType.GENERIC_ERROR,
        `the driver has no function ${config.action}() to run` + (defined.length ? ` (it defines: ${joinText(defined, ', ')})` : ' (it defines no entry point)'),
      );
      return;
    }
    entry();
  });
  return bridge.dispatch;
}

(globalThis as Record<string, unknown>).__driverboxInstall = install;
