// Connections: VPN sessions on an agent and direct connections to a device, counted against
// the agent's connection consumption. Emulated: no VPN server or proxy runs. Sessions are
// stored with their expiry and logged in the activity log; the VPN "configuration" is a text
// that says so, and a device connection's link is the device's own address (no relay).
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { dialTarget } from '../../../monitor/tcp-probe.js';
import { addActivity } from '../../../store/fleet/activity-log.js';
import {
  closeVpnSession,
  connectionConsumption,
  createDeviceConnection,
  createVpnSession,
  listOpenVpnSessions,
  vpnStatusAt,
  type VpnSessionRow,
} from '../../../store/monitoring/connections.js';
import type { DeviceRow } from '../../../store/fleet/devices.js';
import { formatApiTime } from '../../../store/db/time.js';
import { conflict, invalid, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { requireAgent, requireDevice } from '../access.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  connectionConsumptionSchema,
  connectionSessionSchema,
  deviceConnectionRequestSchema,
  vpnActiveConnectionSchema,
  vpnConnectionRequestSchema,
  type AgentVPNConnection,
  type ConnectionProtocol,
  type ConnectionSession,
  type DeviceConnection,
} from '../schemas/connections.js';

const route = (schema: ApiRouteSchema) => ({ schema });

function checkAllowedIp(ip: string): void {
  if (isIP(ip) === 0) throw invalid(['body', 'allowed_ip'], `"${ip}" is not an IPv4 or IPv6 address`);
}

/** The configuration text answered for a VPN session: honest about there being no tunnel. */
export function vpnConfigurationText(session: VpnSessionRow, agentName: string): string {
  return [
    `# driverbox emulated VPN session ${session.id} on agent ${session.agentId} ("${agentName}")`,
    '# driverbox records VPN sessions but runs no VPN server: this file opens no tunnel.',
    `# started by: ${session.name}`,
    `# allowed ip: ${session.allowedIp}`,
    `# routing policy: ${session.routingPolicy}`,
    `# expires: ${formatApiTime(session.expirationTime)} UTC`,
    'client',
    'dev tun',
    'nobind',
    ...(session.routingPolicy === 'global' ? ['redirect-gateway def1'] : []),
    '',
  ].join('\n');
}

/** Where a direct connection leads: the device itself, through its port map. */
function deviceLink(device: DeviceRow, port: number, protocol: ConnectionProtocol): string {
  const target = dialTarget(device, port);
  if (!target) throw conflict(`device ${device.id} has no IP address or host name to connect to`);
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  // http and https links are URLs of the device's web interface; the others name host and port.
  return `${protocol}://${host}:${target.port}${protocol === 'http' || protocol === 'https' ? '/' : ''}`;
}

export function registerConnectionRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get<{ Params: { agent_id: number } }>(
    '/agent/:agent_id/connection/consumption',
    route({
      operationId: 'getConnectionConsumption',
      tags: ['agent'],
      summary: "Bytes consumed by the agent's VPN sessions and device connections, and the limit",
      params: idParams('agent_id'),
      response: { 200: connectionConsumptionSchema },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      return connectionConsumption(store, request.params.agent_id);
    },
  );

  app.get<{ Params: { agent_id: number } }>(
    '/agent/:agent_id/connection/vpn-session',
    route({
      operationId: 'getAgentVPNActiveConnections',
      tags: ['agent'],
      summary: 'The VPN sessions of the agent not closed yet (ACTIVE, or EXPIRED past their expiry)',
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: vpnActiveConnectionSchema } },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      const now = store.now();
      return (await listOpenVpnSessions(store, request.params.agent_id)).map((s) => ({
        id: s.id,
        name: s.name,
        bytes: s.bytes,
        creation_time: formatApiTime(s.creationTime),
        expiration_time: formatApiTime(s.expirationTime),
        status: vpnStatusAt(s, now),
      }));
    },
  );

  app.post<{ Params: { agent_id: number }; Body: AgentVPNConnection }>(
    '/agent/:agent_id/connection/vpn-session',
    route({
      operationId: 'createAgentVPNConnection',
      tags: ['actions'],
      summary: 'Opens a temporary VPN session on the agent; answers its configuration text (emulated: no tunnel)',
      params: idParams('agent_id'),
      body: vpnConnectionRequestSchema,
      produces: 'text/plain',
      response: { 201: { type: 'string', description: 'The VPN configuration file text' } },
    }),
    async (request, reply) => {
      const agent = await requireAgent(store, request.params.agent_id);
      const { allowed_ip, routing_policy, ttl_hours = 1 } = request.body;
      checkAllowedIp(allowed_ip);
      const session = await store.transaction(async () => {
        const created = await createVpnSession(store, agent.id, { user: ctx.user, allowedIp: allowed_ip, routingPolicy: routing_policy, ttlHours: ttl_hours });
        await addActivity(store, {
          agentId: agent.id,
          type: 'vpn_session_start',
          user: ctx.user,
          description: `VPN session ${created.id} opened for ${allowed_ip} (${routing_policy} routing, ${ttl_hours} h; emulated)`,
          details: { vpn_session_id: created.id, allowed_ip, routing_policy, ttl_hours },
        });
        return created;
      });
      return reply.code(201).type('text/plain; charset=utf-8').send(vpnConfigurationText(session, agent.displayName));
    },
  );

  app.delete<{ Params: { agent_id: number; vpn_session_id: number } }>(
    '/agent/:agent_id/connection/vpn-session/:vpn_session_id',
    route({
      operationId: 'deleteAgentVPNConnection',
      tags: ['actions'],
      summary: 'Closes a VPN session of the agent',
      params: idParams('agent_id', 'vpn_session_id'),
      response: { 204: { type: 'null' } },
    }),
    async (request, reply) => {
      const { agent_id, vpn_session_id } = request.params;
      await requireAgent(store, agent_id);
      await store.transaction(async () => {
        if (!await closeVpnSession(store, agent_id, vpn_session_id)) throw notFound('open VPN session', vpn_session_id);
        await addActivity(store, { agentId: agent_id, type: 'vpn_session_terminate', user: ctx.user, description: `VPN session ${vpn_session_id} closed`, details: { vpn_session_id } });
      });
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { agent_id: number; device_id: number }; Body: DeviceConnection }>(
    '/agent/:agent_id/device/:device_id/connection',
    route({
      operationId: 'connectToDevice',
      tags: ['actions'],
      summary: "Opens a direct connection to a port of the device (emulated: the link is the device's own address)",
      params: idParams('agent_id', 'device_id'),
      body: deviceConnectionRequestSchema,
      response: { 201: connectionSessionSchema },
    }),
    async (request, reply): Promise<ConnectionSession> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const { allowed_ip, port, protocol, ttl_hours = 1 } = request.body;
      checkAllowedIp(allowed_ip);
      const link = deviceLink(device, port, protocol);
      const connection = await store.transaction(async () => {
        const created = await createDeviceConnection(store, device.agentId, device.id, { user: ctx.user, allowedIp: allowed_ip, port, protocol, link, ttlHours: ttl_hours });
        await addActivity(store, {
          agentId: device.agentId,
          deviceId: device.id,
          type: 'remote_session_start',
          user: ctx.user,
          description: `${protocol} connection ${created.id} to port ${port} of device "${device.displayName}" for ${allowed_ip} (emulated: direct link)`,
          details: { connection_id: created.id, port, protocol, allowed_ip, ttl_hours },
        });
        return created;
      });
      void reply.code(201);
      return {
        id: connection.id,
        allowed_ip: connection.allowedIp,
        link: connection.link,
        port: connection.port,
        protocol: connection.protocol as ConnectionProtocol,
        expiration: formatApiTime(connection.expirationTime),
      };
    },
  );
}
