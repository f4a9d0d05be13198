// Hostile SNMP agents (test/hostile-peers/snmp-peer.ts, on a worker thread) against
// D.device.createSNMPSession's get / walk / set. Each scenario: the run's result by its
// deadline, the host loop's stall under STALL_BOUND_MS, a bystander device's runs all
// successful, and no uncaught exception in this process (net-snmp throwing in its socket's
// 'message' listener on a Report PDU answered to v1 / v2c used to end the process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnmpSettings } from '../../host/contract/device.js';
import type { RunLimits } from '../../host/contract/limits.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource, useHost } from '../helpers/host.js';
import { expectOthersUnharmed, startBystander, STALL_BOUND_MS, watchLoop } from './harness.js';
import { freeUdpPort } from '../helpers/snmpd.js';
import { startSnmpPeer, type SnmpPeer, type SnmpScenario } from './snmp-peer.js';
import { oidAfter } from '../../host/bridges/snmp/oid-order.js';

const BASE = '1.3.6.1.4.1.99999';
const OID = `${BASE}.1.0`;
/** Each run's deadline; the SNMP timeout (× 2 tries) fits in it, so a timeout is the call's own. */
const RUN_MS = 6_000;
const SNMP_TIMEOUT_MS = 1_000;

const host = useHost();
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
beforeAll(() => void process.on('uncaughtException', onUncaught));
afterAll(() => void process.off('uncaughtException', onUncaught));

/** A driver that hands what its callback got to the test as one JSON variable. */
function reporting(call: string): string {
  return `function get_status() {
    ${call}(function (output, error) {
      var text = JSON.stringify({ keys: output && typeof output === 'object' ? Object.keys(output).length : output, error: error ? { name: error.name, message: error.message, code: error.code } : null });
      D.success([D.createVariable('got', 'Got', text.slice(0, 4000))]);
    });
  }`;
}

interface Got {
  keys: number | null;
  error: { name: string; message: string; code?: string } | null;
}

const ops = {
  get: `D.device.createSNMPSession({ timeout: ${SNMP_TIMEOUT_MS} }).get.bind(null, ['${OID}'])`,
  walk: `D.device.createSNMPSession({ timeout: ${SNMP_TIMEOUT_MS}, maxRepetitions: 10 }).walk.bind(null, '${BASE}')`,
  set: `D.device.createSNMPSession({ timeout: ${SNMP_TIMEOUT_MS} }).set.bind(null, '${OID}', 'value')`,
};

interface Outcome {
  result: RunResult;
  got: Got;
  maxStallMs: number;
}

/** One run against an agent on `port`, a bystander beside it; the common assertions made. */
async function against(port: number, op: keyof typeof ops, version: SnmpSettings['version'], limits: Partial<RunLimits> = {}): Promise<Outcome> {
  const thrown = uncaught.length;
  const bystander = await startBystander(host);
  const watch = watchLoop();
  const result = await runSource(host, reporting(ops[op]), {
    device: { id: `hostile-snmp-${port}`, ip: '127.0.0.1', portMap: { 161: port }, snmp: { version, community: 'public', writeCommunity: 'private' } as SnmpSettings },
    limits: { timeoutMs: RUN_MS, ...limits },
  });
  const { maxStallMs } = await expectOthersUnharmed(watch, bystander, result, RUN_MS);
  expect(uncaught.slice(thrown).map(String)).toEqual([]);
  expect(result.status, JSON.stringify(result)).toBe('success');
  const got = JSON.parse(result.variables.find((v) => v.uid === 'got')!.value as string) as Got;
  return { result, got, maxStallMs };
}

async function withPeer<T>(scenario: SnmpScenario, use: (peer: SnmpPeer) => Promise<T>, options?: { delayMs?: number; floodCount?: number }): Promise<T> {
  const peer = await startSnmpPeer(scenario, { base: BASE, ...options });
  try {
    return await use(peer);
  } finally {
    await peer.stop();
  }
}

describe('SNMP against hostile agents', () => {
  describe('a Report PDU answered to v1 / v2c ends the call, not the process', () => {
    for (const version of ['v2c', 'v1'] as const) {
      for (const op of ['get', 'walk', 'set'] as const) {
        it(`${version} ${op}`, async () => {
          const { got } = await withPeer('report', (peer) => against(peer.port, op, version));
          expect(got.error?.code).toBe('MALFORMED_ANSWER');
          expect(got.error?.message).toBe(`the agent answered an SNMP ${version} request with a Report PDU, which only SNMPv3 uses`);
        });
      }
    }
  });

  describe('a malformed answer fails the call at once, with what was wrong', () => {
    const kinds: Array<[SnmpScenario, RegExp]> = [
      ['truncated', /^the agent's answer is malformed: the message claims \d+ bytes but \d+ are left$/],
      ['bad-length', /^the agent's answer is malformed: the varbind list claims 2147483647 bytes but \d+ are left$/],
      ['wrong-tag', /^the agent's answer is malformed: varbind 1's OID has tag 0x4 where 0x6 belongs$/],
      ['long-integer', /^the agent's answer could not be decoded: /],
      ['unknown-pdu-tag', /^the agent's answer is malformed: the PDU has tag 0xa9, which is no SNMP PDU$/],
      ['garbage', /^the agent's answer is malformed: the message has tag 0x74 where 0x30 belongs$/],
    ];
    for (const [scenario, message] of kinds) {
      for (const op of ['get', 'walk', 'set'] as const) {
        it(`${scenario}, ${op}`, async () => {
          const { got } = await withPeer(scenario, (peer) => against(peer.port, op, 'v2c'));
          expect(got.error?.code).toBe('MALFORMED_ANSWER');
          expect(got.error?.message).toMatch(message);
        });
      }
    }
  });

  it('an endless walk ends at the run\'s maxProtocolCommands, with what it had', async () => {
    const { got } = await withPeer('endless-walk', (peer) => against(peer.port, 'walk', 'v2c', { maxProtocolCommands: 25 }));
    expect(got.error?.code).toBe('TOO_MANY_COMMANDS');
    expect(got.keys).toBe(25 * 10);
  });

  it('a walk answered with the same error varbind again (net-snmp checks no order on errors) fails at once', async () => {
    const { got } = await withPeer('endless-errors', (peer) => against(peer.port, 'walk', 'v2c'));
    expect(got.error?.code).toBe('OID_NOT_INCREASING');
    expect(got.error?.message).toBe(`the agent's walk did not move forward: ${BASE}.1 came after ${BASE}.1`);
    expect(got.keys).toBe(1);
  });

  it('a walk whose OID stands still (net-snmp lets an equal OID through) fails at once', async () => {
    const { got } = await withPeer('not-increasing', (peer) => against(peer.port, 'walk', 'v2c'));
    expect(got.error?.code).toBe('OID_NOT_INCREASING');
    expect(got.error?.message).toBe(`the agent's walk did not move forward: ${BASE}.5 came after ${BASE}.5`);
    expect(got.keys).toBe(1);
  });

  it('huge values end get and walk at the run\'s maxOutputBytes', async () => {
    for (const op of ['get', 'walk'] as const) {
      const { got } = await withPeer('huge-values', (peer) => against(peer.port, op, 'v2c', { maxOutputBytes: 16_384 }));
      expect(got.error?.code).toBe('OUTPUT_TOO_LARGE');
      expect(got.error?.message).toContain('maxOutputBytes 16384');
    }
  });

  it('pages of thousands of varbinds end a walk at maxOutputBytes', async () => {
    const { got } = await withPeer('huge-varbinds', (peer) => against(peer.port, 'walk', 'v2c', { maxOutputBytes: 200_000 }));
    expect(got.error?.code).toBe('OUTPUT_TOO_LARGE');
  });

  it('a dripping walk ends at the run\'s deadline, and nothing is sent after it', async () => {
    await withPeer(
      'dripping',
      async (peer) => {
        const thrown = uncaught.length;
        const bystander = await startBystander(host);
        const watch = watchLoop();
        const result = await runSource(host, reporting(ops.walk), { device: { ip: '127.0.0.1', portMap: { 161: peer.port }, snmp: { version: 'v2c', community: 'public' } }, limits: { timeoutMs: 3_000 } });
        const { maxStallMs } = watch.stop();
        const side = await bystander.stop();
        expect(result.status).toBe('failure');
        expect(result.errorType).toBe('TIMEOUT_ERROR');
        expect(result.durationMs).toBeLessThanOrEqual(3_000 + STALL_BOUND_MS);
        expect(maxStallMs).toBeLessThan(STALL_BOUND_MS);
        expect(side.failures).toEqual([]);
        expect(uncaught.slice(thrown).map(String)).toEqual([]);
        // net-snmp's retry timers went with the session: the agent hears nothing more.
        const heard = peer.received();
        await new Promise((resolve) => setTimeout(resolve, 2 * SNMP_TIMEOUT_MS + 500));
        expect(peer.received()).toBe(heard);
      },
      { delayMs: SNMP_TIMEOUT_MS - 300 },
    );
  });

  it('a flood of large answers to requests never made is dropped unread; the real answer is taken', async () => {
    for (const op of ['get', 'set'] as const) {
      const { got } = await withPeer('flood', (peer) => against(peer.port, op, 'v2c'), { floodCount: 3_000 });
      expect(got.error).toBeNull();
      expect(got.keys).toBe(1);
    }
  });

  it('an agent that closes its port after one page: the walk times out with what it had', async () => {
    const { got } = await withPeer('dies-after-first', (peer) => against(peer.port, 'walk', 'v2c'));
    expect(got.error?.name).toBe('RequestTimedOutError');
    expect(got.keys).toBe(1);
  });

  it('nothing listening (ICMP port unreachable): get, walk and set time out on their own timeout', async () => {
    const port = await freeUdpPort();
    for (const op of ['get', 'walk', 'set'] as const) {
      const { got } = await against(port, op, 'v2c');
      expect(got.error?.name).toBe('RequestTimedOutError');
    }
  });
});

describe('OID order (oidAfter)', () => {
  it('is arc by arc, numeric, a prefix before what extends it, equal not after', () => {
    expect(oidAfter('1.3.6.1.2', '1.3.6.1.10')).toBe(true);
    expect(oidAfter('1.3.6.1.10', '1.3.6.1.2')).toBe(false);
    expect(oidAfter('1.3.6.1', '1.3.6.1.0')).toBe(true);
    expect(oidAfter('1.3.6.1.0', '1.3.6.1')).toBe(false);
    expect(oidAfter('1.3.6.1.5', '1.3.6.1.5')).toBe(false);
    expect(oidAfter('1.3.6.1.4294967295', '1.3.6.1.4294967296')).toBe(true);
    expect(oidAfter('1.3.6.1.99999999999999999999', '1.3.6.1.100000000000000000000')).toBe(true);
  });
});
