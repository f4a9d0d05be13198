// The simulated SSH device the SSH bench dials, in a process of its own (a device has its own
// CPU: the bench's CPU figures are the client's alone). Prints "port <n>" once it listens;
// stops when its stdin closes.
import { startSimulator } from '../../host/simulator/simulator.js';

const sim = await startSimulator({
  fixture: 1,
  device: { username: 'bench', password: 'bench-secret' },
  routes: [],
  ssh: { commands: { 'uname -a': 'Linux bench-01 6.1.0 #1 SMP x86_64 GNU/Linux' } },
});
process.stdout.write(`port ${sim.ssh!.port}\n`);
process.stdin.resume();
process.stdin.on('end', () => void sim.close().then(() => process.exit(0)));
