// `driverbox demo` (npm start): serves each example's simulated device on loopback,
// runs the example driver against it, and prints what it reported. No device, no network.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../../host.js';
import { startSimulator } from '../../simulator/simulator.js';
import { formatResult, styleFor } from '../format.js';
import type { CliIo } from '../main.js';

export function examplesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'drivers-examples'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('drivers-examples/ not found next to the driverbox package');
    dir = parent;
  }
  return path.join(dir, 'drivers-examples');
}

export async function demoCommand(_argv: string[], io: CliIo): Promise<number> {
  const root = examplesDir();
  const examples = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'driver.js')) && existsSync(path.join(root, d.name, 'device.json')))
    .map((d) => d.name)
    .sort();
  const host = createHost();
  const style = styleFor(io.stdoutStream, io.env);
  let failed = 0;
  try {
    for (const name of examples) {
      const sim = await startSimulator(path.join(root, name, 'device.json'));
      try {
        const result = await host.run({ path: path.join(root, name, 'driver.js'), device: sim.device, parameters: sim.parameters });
        if (result.status !== 'success') failed++;
        io.stdout(`${formatResult(result, `${name} · get_status · simulated device at http://127.0.0.1:${sim.httpPort}`, style)}\n`);
      } finally {
        await sim.close();
      }
    }
  } finally {
    await host.close();
  }
  io.stdout(`${examples.length - failed} of ${examples.length} example drivers succeeded`);
  return failed === 0 ? 0 : 1;
}
