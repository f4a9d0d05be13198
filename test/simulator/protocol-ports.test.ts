// A simulated device is its simulator's ports only, for protocol calls as for HTTP (issue 34,
// item 4): SSH, Telnet, WinRM and SNMP to a port the fixture does not serve fail at once with
// PORT_NOT_SIMULATED (another port of the simulator's address is the host machine's own: the
// developer's sshd on 127.0.0.1:22), and a TFTP receiver is refused (the simulator sends no TFTP).
// Each test puts a real local service on a port the fixture does not serve: it must hear nothing.
import dgram from 'node:dgram';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, startSimulator, type Host, type Simulator } from '../../host/index.js';

let sim: Simulator;
let host: Host;
// The host machine's own services, on loopback: a TCP one (sshd, a telnet daemon, WinRM) and a UDP one (an SNMP agent).
let tcp: net.Server;
let udp: dgram.Socket;
let tcpPort = 0;
let udpPort = 0;
const tcpConnections: string[] = [];
const udpDatagrams: number[] = [];

beforeAll(async () => {
  tcp = net.createServer((socket) => {
    tcpConnections.push(`${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  tcpPort = (tcp.address() as AddressInfo).port;
  udp = dgram.createSocket('udp4');
  udp.on('message', (message) => udpDatagrams.push(message.length));
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  udpPort = udp.address().port;
  // A fixture that serves Telnet on 23 (and HTTP on 80): the ports the driver may reach.
  sim = await startSimulator({
    fixture: 1,
    device: { host: 'router.lan', username: 'admin', password: 'pw' },
    routes: [{ path: '/', body: 'ok' }],
    telnet: { commands: { 'show version': 'simulated 1.0' } },
  });
  host = createHost({ threads: 1, warmIsolates: 0 });
});

afterAll(async () => {
  await host?.close();
  await sim?.close();
  await new Promise<void>((resolve) => tcp.close(() => resolve()));
  udp.close();
});

/** Runs `body` (driver code that logs one line) against the simulated device; returns the line. */
async function run(body: string): Promise<string> {
  const source = `function get_status() {\n${body}\n}`;
  const result = await host.run({ source, filename: 'driver.js', device: sim.device, resolve: sim.resolve, limits: { timeoutMs: 15_000 } });
  expect(result.logs.length, JSON.stringify(result)).toBe(1);
  return result.logs[0]!.message;
}

const report = `function report(error) { console.log(error ? error.code + ' | ' + error.message : 'reached'); D.success(); }`;

describe('protocol calls reach only the ports a simulator serves', () => {
  it('SSH to an unmapped port fails with PORT_NOT_SIMULATED; the local service hears nothing', async () => {
    const line = await run(`${report}
D.device.sendSSHCommand({ command: 'id', port: ${tcpPort}, timeout: 5000 }, function (output, error) { report(error); });`);
    expect(line).toBe(`PORT_NOT_SIMULATED | SSH to port ${tcpPort}: the simulated device does not serve this port (it serves 23, 80); another port of its address is the host machine's own`);
    // sendSSHCommands shares the refusal.
    const shell = await run(`${report}
D.device.sendSSHCommands({ commands: ['id'], port: ${tcpPort} }, function (outputs, error) { report(error); });`);
    expect(shell).toMatch(new RegExp(`^PORT_NOT_SIMULATED \\| SSH to port ${tcpPort}: `));
    expect(tcpConnections).toEqual([]);
  });

  it('Telnet to an unmapped port fails with PORT_NOT_SIMULATED; the fixture\'s own port 23 still answers', async () => {
    const line = await run(`${report}
D.device.sendTelnetCommand({ command: 'show version', port: ${tcpPort} }, function (output, error) { report(error); });`);
    expect(line).toBe(`PORT_NOT_SIMULATED | D.device.sendTelnetCommand: Telnet to port ${tcpPort}: the simulated device does not serve this port (it serves 23, 80); another port of its address is the host machine's own`);
    expect(tcpConnections).toEqual([]);
    // The control: the served port is dialled through the simulator's port map.
    const served = await run(`D.device.sendTelnetCommand({ command: 'show version', timeout: 2000 }, function (output, error) { console.log(error ? 'error ' + error.code : String(output.indexOf('simulated 1.0') >= 0)); D.success(); });`);
    expect(served).toBe('true');
  });

  it('WinRM to an unmapped port fails with PORT_NOT_SIMULATED; the local service hears nothing', async () => {
    const line = await run(`${report}
D.device.sendWinRMCommand({ command: 'hostname', port: ${tcpPort} }, function (result) { report(result.error); });`);
    expect(line).toBe(`PORT_NOT_SIMULATED | D.device.sendWinRMCommand: WinRM to port ${tcpPort}: the simulated device does not serve this port (it serves 23, 80); another port of its address is the host machine's own`);
    expect(tcpConnections).toEqual([]);
  });

  it('SNMP to an unmapped port (161 included) fails with PORT_NOT_SIMULATED; the local agent gets no datagram', async () => {
    const line = await run(`${report}
D.device.createSNMPSession({ port: ${udpPort}, timeout: 500 }).get(['1.3.6.1.2.1.1.5.0'], function (output, error) { report(error); });`);
    expect(line).toBe(`PORT_NOT_SIMULATED | SNMP to port ${udpPort}: the simulated device does not serve this port (it serves 23, 80); another port of its address is the host machine's own`);
    // The default port, which the fixture does not serve either (it has no snmp section).
    const standard = await run(`${report}
D.device.createSNMPSession({ timeout: 500 }).walk('1.3.6.1.2.1.1', function (output, error) { report(error); });`);
    expect(standard).toMatch(/^PORT_NOT_SIMULATED \| SNMP to port 161: /);
    expect(udpDatagrams).toEqual([]);
  });

  it('a TFTP receiver is refused: the simulator sends no TFTP, so the run opens none for its device', async () => {
    const line = await run(`
D.tftpServer.accept({ filePath: 'backup.cfg', timeout: 1000 }, function (error, host, port) {
  console.log(error ? error.code + ' | ' + error.message : 'opened ' + port);
  D.success();
}, function () {});`);
    expect(line).toBe('PORT_NOT_SIMULATED | D.tftpServer.accept: TFTP is not simulated: the simulated device never uploads, so the run opens no TFTP receiver for it');
  });
});
