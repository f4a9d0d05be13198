// The part of net-snmp (which ships no types) that driverbox uses: the client session, and
// the agent and MIB the SNMP simulator serves.
declare module 'net-snmp' {
  import type { EventEmitter } from 'node:events';

  namespace snmp {
    interface Varbind {
      oid: string;
      type: number;
      value: unknown;
    }
    interface SessionOptions {
      port?: number;
      retries?: number;
      timeout?: number;
      transport?: 'udp4' | 'udp6';
      version?: number;
      backwardsGetNexts?: boolean;
      dgramModule?: { createSocket(type: 'udp4' | 'udp6'): import('node:dgram').Socket };
    }
    interface User {
      name: string;
      level: number;
      authProtocol?: number;
      authKey?: string;
      privProtocol?: number;
      privKey?: string;
    }
    interface Session extends EventEmitter {
      get(oids: string[], callback: (error: Error | null, varbinds?: Varbind[]) => void): Session;
      set(varbinds: Varbind[], callback: (error: Error | null, varbinds?: Varbind[]) => void): Session;
      walk(oid: string, maxRepetitions: number, feed: (varbinds: Varbind[]) => boolean | void, done: (error: Error | null) => void): Session;
      close(): Session;
    }
    interface MibNode {
      value: unknown;
      valueType: number;
    }
    interface MibRequest {
      operation: number;
      oid: string;
      instanceNode?: MibNode;
      setValue?: unknown;
      done(error?: { errorStatus: number; type: number; value: unknown }): void;
    }
    interface ScalarProvider {
      name: string;
      type: number;
      oid: string;
      scalarType: number;
      maxAccess: number;
      handler?: (request: MibRequest) => void;
    }
    interface Mib {
      registerProvider(provider: ScalarProvider): void;
      getProvider(name: string): ScalarProvider;
      addProviderToNode(provider: ScalarProvider): MibNode;
      addNodesForOid(oid: string): MibNode;
      lookup(oid: string): MibNode | null;
    }
    interface Authorizer {
      addCommunity(community: string): void;
      addUser(user: User): void;
      getAccessControlModel(): { setCommunityAccess(community: string, level: number): void; setUserAccess(user: string, level: number): void };
    }
    interface Agent {
      getAuthorizer(): Authorizer;
      getMib(): Mib;
      close(callback?: () => void): void;
      listener: { sockets: Record<string, import('node:dgram').Socket> };
    }
    interface AgentOptions {
      port?: number;
      address?: string | null;
      transport?: 'udp4' | 'udp6';
      disableAuthorization?: boolean;
      accessControlModelType?: number;
      engineID?: string;
      dgramModule?: { createSocket(type: 'udp4' | 'udp6'): import('node:dgram').Socket };
    }
  }

  const snmp: {
    Version1: number;
    Version2c: number;
    Version3: number;
    ObjectType: Record<string, number> & Record<number, string>;
    PduType: Record<string, number>;
    ErrorStatus: Record<string, number>;
    SecurityLevel: Record<string, number>;
    AuthProtocols: Record<string, number>;
    PrivProtocols: Record<string, number>;
    MibProviderType: Record<string, number>;
    MaxAccess: Record<string, number>;
    AccessControlModelType: Record<string, number>;
    AccessLevel: Record<string, number>;
    createSession(target: string, community: string, options?: snmp.SessionOptions): snmp.Session;
    createV3Session(target: string, user: snmp.User, options?: snmp.SessionOptions): snmp.Session;
    createAgent(options: snmp.AgentOptions, callback: (error: Error | null, data?: unknown) => void, mib?: snmp.Mib): snmp.Agent;
    createMib(): snmp.Mib;
    isVarbindError(varbind: snmp.Varbind): boolean;
    varbindError(varbind: snmp.Varbind): string;
  };
  export = snmp;
}
