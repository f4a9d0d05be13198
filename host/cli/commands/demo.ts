// `driverbox demo` (npm start): serves each example's simulated device on loopback,
// runs the example driver against it, and prints what it reported. No device, no network.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { packagePath } from '../../package-path.js';
import { runDriver } from '../../testing/run-driver.js';
import { formatResult, styleFor } from '../format.js';
import type { CliIo } from '../main.js';

export function examplesDir(): string {
  const dir = packagePath('drivers-examples');
  if (!dir) throw new Error('drivers-examples/ not found next to the driverbox package');
  return dir;
}

/** An example's external hosts: hosts/<host name>.json beside its device.json. */
function externalHosts(folder: string): Record<string, string> {
  const dir = path.join(folder, 'hosts');
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file.slice(0, -'.json'.length), path.join(dir, file)]),
  );
}

export async function demoCommand(_argv: string[], io: CliIo): Promise<number> {
  const root = examplesDir();
  const examples = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'driver.js')) && existsSync(path.join(root, d.name, 'device.json')))
    .map((d) => d.name)
    .sort();
  const style = styleFor(io.stdoutStream, io.env);
  let failed = 0;
  for (const name of examples) {
    const folder = path.join(root, name);
    const hosts = externalHosts(folder);
    const result = await runDriver({ path: path.join(folder, 'driver.js'), simulate: path.join(folder, 'device.json'), simulateHosts: hosts });
    if (result.status !== 'success') failed++;
    const where = ['device.json', ...Object.keys(hosts)].join(' + ');
    io.stdout(`${formatResult(result, `${name} · get_status · simulated: ${where}`, style)}\n`);
  }
  io.stdout(`${examples.length - failed} of ${examples.length} example drivers succeeded`);
  return failed === 0 ? 0 : 1;
}
