// The simulated SNMP agent: net-snmp's Agent on 127.0.0.1 (a free UDP port unless one is
// asked for) answering a fixture's "snmp" section: v1 / v2c with its community (read-only
// when a writeCommunity is given), v3 with its users; get, getNext, getBulk (so walks) and set
// on the OIDs marked writable. Values live in one MIB tree; a set changes them until close.
import snmp from 'net-snmp';
import { agentSockets } from './agent-socket.js';
import type { SnmpFixture } from './fixture.js';

const LOOPBACK = '127.0.0.1';

export interface SnmpRequestLog {
  /** GetRequest, GetNextRequest, GetBulkRequest or SetRequest. */
  pdu: string;
  oids: string[];
  /** The community, or the v3 user. */
  by: string;
}

export interface SnmpAgent {
  readonly port: number;
  /** Requests answered so far. */
  readonly requests: number;
  close(): Promise<void>;
}

const TYPE_CODES: Record<string, number> = {
  OctetString: snmp.ObjectType.OctetString!,
  Integer: snmp.ObjectType.Integer!,
  Counter32: snmp.ObjectType.Counter!,
  Gauge32: snmp.ObjectType.Gauge!,
  TimeTicks: snmp.ObjectType.TimeTicks!,
  IpAddress: snmp.ObjectType.IpAddress!,
  OID: snmp.ObjectType.OID!,
  Counter64: snmp.ObjectType.Counter64!,
  Opaque: snmp.ObjectType.Opaque!,
};

export async function startSnmpAgent(fixture: SnmpFixture, options: { address?: string; port?: number; onRequest?: (request: SnmpRequestLog) => void } = {}): Promise<SnmpAgent> {
  const address = options.address ?? LOOPBACK;
  const mib = snmp.createMib();
  const writable = new Set(fixture.values.filter((v) => v.writable).map((v) => v.oid));
  // One provider per parent OID: the agent then answers NoSuchObject for an OID under no
  // provider and NoSuchInstance for a missing row of a column that has others, as agents do.
  const parents = new Set(fixture.values.map((v) => v.oid.slice(0, v.oid.lastIndexOf('.'))));
  for (const parent of parents) {
    const provider: snmp.ScalarProvider = {
      name: parent,
      type: snmp.MibProviderType.Scalar!,
      oid: parent,
      scalarType: snmp.ObjectType.OctetString!,
      maxAccess: snmp.MaxAccess['read-write']!,
      handler: (request) => {
        if (request.operation === snmp.PduType.SetRequest && !writable.has(request.oid)) {
          return request.done({ errorStatus: snmp.ErrorStatus.NotWritable!, type: snmp.ObjectType.Null!, value: null });
        }
        request.done();
      },
    };
    mib.registerProvider(provider);
    mib.addProviderToNode(provider);
  }
  for (const value of fixture.values) {
    mib.addNodesForOid(value.oid);
    const node = mib.lookup(value.oid)!;
    node.valueType = TYPE_CODES[value.type]!;
    node.value = value.value;
  }

  let requests = 0;
  // One warning per agent: a peer that sends many such datagrams must not flood the host's log.
  let warned = false;
  const dropped = (error: unknown, from: { address: string; port: number }) => {
    if (warned) return;
    warned = true;
    process.emitWarning(`driverbox simulator: an SNMP datagram from ${from.address}:${from.port} was dropped, its handling failed: ${error instanceof Error ? error.message : String(error)} (later ones are dropped silently)`);
  };
  const agent = snmp.createAgent(
    { port: 1, address, transport: 'udp4', accessControlModelType: snmp.AccessControlModelType.Simple, dgramModule: agentSockets(options.port ?? 0, dropped) },
    () => {
      // Each answer, and each message refused (a wrong community, a bad v3 key): the agent drops those, as real ones do.
    },
    mib,
  );
  const authorizer = agent.getAuthorizer();
  const access = authorizer.getAccessControlModel();
  authorizer.addCommunity(fixture.community);
  access.setCommunityAccess(fixture.community, fixture.writeCommunity ? snmp.AccessLevel.ReadOnly! : snmp.AccessLevel.ReadWrite!);
  if (fixture.writeCommunity) {
    authorizer.addCommunity(fixture.writeCommunity);
    access.setCommunityAccess(fixture.writeCommunity, snmp.AccessLevel.ReadWrite!);
  }
  for (const user of fixture.v3Users) {
    authorizer.addUser({
      name: user.name,
      level: snmp.SecurityLevel[user.level]!,
      ...(user.authKey ? { authProtocol: snmp.AuthProtocols[user.authProtocol!]!, authKey: user.authKey } : {}),
      ...(user.privKey ? { privProtocol: snmp.PrivProtocols[user.privProtocol!]!, privKey: user.privKey } : {}),
    });
    access.setUserAccess(user.name, snmp.AccessLevel.ReadWrite!);
  }

  // Count and log each request by the PDU it came as (getNext / getBulk rewrite theirs before answering).
  const internals = agent as unknown as Record<string, (socket: unknown, message: { pdu: { varbinds: Array<{ oid: string }> }; version: number; community?: string; user?: { name: string } }, rinfo: unknown) => void>;
  for (const [method, pdu] of [['getRequest', 'GetRequest'], ['setRequest', 'SetRequest'], ['getNextRequest', 'GetNextRequest'], ['getBulkRequest', 'GetBulkRequest']] as const) {
    const original = internals[method]!.bind(agent);
    internals[method] = (socket, message, rinfo) => {
      requests++;
      options.onRequest?.({ pdu, oids: message.pdu.varbinds.map((v) => v.oid), by: message.version === snmp.Version3 ? `v3 user ${message.user?.name ?? '?'}` : `community ${message.community ?? '?'}` });
      original(socket, message, rinfo);
    };
  }
  // A value net-snmp cannot encode must not take the host down with it: that answer is dropped.
  const listener = agent.listener as unknown as { send: (...args: unknown[]) => void };
  const send = listener.send.bind(listener);
  listener.send = (...args) => {
    try {
      send(...args);
    } catch (error) {
      process.emitWarning(`driverbox simulator: an SNMP answer could not be encoded: ${(error as Error).message}`);
    }
  };

  const socket = Object.values(agent.listener.sockets)[0]!;
  await new Promise<void>((resolve, reject) => {
    socket.once('listening', () => resolve());
    socket.once('error', (error: NodeJS.ErrnoException) => reject(Object.assign(new Error(`cannot serve SNMP on udp ${address}:${options.port ?? 0}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`), { code: error.code })));
  });
  let closed = false;
  return {
    port: socket.address().port,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        closed = true;
        agent.close(() => resolve());
      }),
  };
}
