// A real SNMP agent for the tests: Debian's snmpd on 127.0.0.1, on a free UDP port, with a
// config written into a temp folder (a read-only and a read-write community, a v3 authPriv
// user made by createUser in a persistent dir of its own, no AgentX), stopped after.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const SNMPD = '/usr/sbin/snmpd';
export const haveSnmpd = existsSync(SNMPD) && existsSync('/usr/bin/snmpget');

export const snmpdAuth = {
  readCommunity: 'ro-secret-community',
  writeCommunity: 'rw-secret-community',
  user: { name: 'driverbox', authProtocol: 'sha', authKey: 'auth-key-12345', privProtocol: 'aes', privKey: 'priv-key-67890' },
} as const;

export interface Snmpd {
  port: number;
  /** Runs a net-snmp command-line tool (snmpget, snmpwalk…) against this agent; stdout. */
  tool(name: string, args: string[]): string;
  stop(): Promise<void>;
}

/** MIB files are not needed (numeric OIDs): without them the tools print no parse warnings. */
const quietEnv = { ...process.env, MIBS: '', MIBDIRS: '/nonexistent' };

/** A UDP port nothing listens on right now. */
export function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.on('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

export async function startSnmpd(): Promise<Snmpd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-snmpd-'));
  const conf = path.join(dir, 'snmpd.conf');
  const { readCommunity, writeCommunity, user } = snmpdAuth;
  writeFileSync(conf, [
    `rocommunity ${readCommunity} 127.0.0.1`,
    `rwcommunity ${writeCommunity} 127.0.0.1`,
    `createUser ${user.name} SHA "${user.authKey}" AES "${user.privKey}"`,
    `rwuser ${user.name} priv`,
    'master no',
    'sysLocation driverbox test lab',
    '',
  ].join('\n'));
  const port = await freeUdpPort();
  const env = { ...quietEnv, SNMP_PERSISTENT_DIR: path.join(dir, 'persist') };
  const child: ChildProcess = spawn(SNMPD, ['-f', '-Lo', '-C', '-c', conf, `udp:127.0.0.1:${port}`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  // Ready when it answers a get.
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`snmpd exited: ${log}`);
    const out = spawnSync('/usr/bin/snmpget', ['-On', '-t', '0.3', '-r', '0', '-v2c', '-c', readCommunity, `127.0.0.1:${port}`, '1.3.6.1.2.1.1.3.0'], { env: quietEnv, encoding: 'utf8' });
    if (out.stdout.includes('1.3.6.1.2.1.1.3.0')) break;
    if (Date.now() - started > 10_000) throw new Error(`snmpd did not answer: ${log}`);
  }
  return {
    port,
    tool: (name, args) => {
      // the OIDs go after the agent
      const oidsAt = args.findIndex((a) => /^\.?\d+(\.\d+)+$/.test(a));
      const before = oidsAt < 0 ? args : args.slice(0, oidsAt);
      const after = oidsAt < 0 ? [] : args.slice(oidsAt);
      return spawnSync(`/usr/bin/${name}`, ['-On', '-t', '1', '-r', '0', ...before, `127.0.0.1:${port}`, ...after], { env: quietEnv, encoding: 'utf8' }).stdout;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once('exit', done);
        child.kill('SIGTERM');
      }),
  };
}
