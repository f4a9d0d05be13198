// The SNMP simulator's socket under hostile datagrams (issue 34): net-snmp's Agent answers the
// sender's port, so a datagram forged from port 0 would have it answer where dgram.send throws;
// such a datagram is dropped before net-snmp reads it. And whatever throws while one datagram is
// handled drops that datagram, never the process: the next request is answered.
import { execFile, execFileSync } from 'node:child_process';
import dgram from 'node:dgram';
import { promisify } from 'node:util';
import snmp from 'net-snmp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SnmpRequestLog } from '../../host/simulator/snmp/agent.js';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';

const SYS_NAME = '1.3.6.1.2.1.1.5.0';
const fixture = { fixture: 1, routes: [], snmp: { community: 'sim-read', oids: { [SYS_NAME]: 'simulated' } } };

/** Forging a source port takes a raw socket: root, and python3 to open it (a child process, off this loop). */
const canForge =
  process.getuid?.() === 0 &&
  (() => {
    try {
      execFileSync('python3', ['-c', '']);
      return true;
    } catch {
      return false;
    }
  })();

/** A v2c GetRequest of sysName with the fixture's community, as net-snmp's client encodes it. */
async function getRequestBytes(): Promise<Buffer> {
  const capture = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => capture.bind(0, '127.0.0.1', resolve));
  try {
    return await new Promise<Buffer>((resolve) => {
      capture.once('message', (message) => resolve(message));
      const session = snmp.createSession('127.0.0.1', 'sim-read', { port: capture.address().port, version: snmp.Version2c, retries: 0, timeout: 2000 });
      session.get([SYS_NAME], () => session.close());
    });
  } finally {
    capture.close();
  }
}

/** `packet` sent to 127.0.0.1:`port` from 127.0.0.1 port 0 (the UDP checksum left 0: none). */
async function forgeFromPortZero(port: number, packet: Buffer): Promise<void> {
  await promisify(execFile)('python3', [
    '-c',
    `
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
p = bytes.fromhex('${packet.toString('hex')}')
s.sendto(struct.pack('!HHHH', 0, ${port}, 8 + len(p), 0) + p, ('127.0.0.1', 0))
`,
  ]);
}

/** A real get from an ordinary port: the simulator's answer, or the error. */
function get(port: number, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    const session = snmp.createSession('127.0.0.1', 'sim-read', { port, version: snmp.Version2c, retries: 0, timeout: timeoutMs });
    session.get([SYS_NAME], (error, varbinds) => {
      session.close();
      resolve(error ? `error: ${error.message}` : String(varbinds![0]!.value));
    });
  });
}

const uncaught: unknown[] = [];
const warnings: string[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
const onWarning = (warning: Error) => warnings.push(warning.message);
beforeAll(() => {
  process.on('uncaughtException', onUncaught);
  process.on('warning', onWarning);
});
afterAll(() => {
  process.off('uncaughtException', onUncaught);
  process.off('warning', onWarning);
});

describe('the SNMP simulator under forged and failing datagrams', () => {
  let sim: Simulator | null = null;
  afterEach(async () => {
    await sim?.close();
    sim = null;
    uncaught.length = 0;
    warnings.length = 0;
  });

  it.skipIf(!canForge)('a request forged from source port 0 is dropped unread; the next request is answered', async () => {
    const heard: SnmpRequestLog[] = [];
    sim = await startSimulator(fixture, { onSnmpRequest: (request) => heard.push(request) });
    await forgeFromPortZero(sim.snmpPort!, await getRequestBytes());
    // Sent after the forged one on loopback: once it is answered, the forged one was handled (or dropped).
    expect(await get(sim.snmpPort!)).toBe('simulated');
    expect(heard).toEqual([{ pdu: 'GetRequest', oids: [SYS_NAME], by: 'community sim-read' }]);
    expect(warnings.filter((w) => w.startsWith('driverbox simulator'))).toEqual([]);
    expect(uncaught).toEqual([]);
  });

  it('a throw while one datagram is handled drops that datagram, not the process: the next is answered', async () => {
    let calls = 0;
    sim = await startSimulator(fixture, {
      onSnmpRequest: () => {
        if (++calls === 1) throw new Error('the first request fails');
      },
    });
    // The first request's handling throws: it gets no answer (the client gives up after 1 s).
    expect(await get(sim.snmpPort!, 1000)).toBe('error: Request timed out');
    expect(await get(sim.snmpPort!)).toBe('simulated');
    expect(uncaught).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^driverbox simulator: an SNMP datagram from 127\.0\.0\.1:\d+ was dropped, its handling failed: the first request fails \(later ones are dropped silently\)$/);
  });
});
