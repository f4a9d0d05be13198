// SNMP/TCP SENSORS operations of MonitoringClient.
import type {
  AlertMedium,
  EyesUsageInformation,
  SnmpAgentEye,
  SnmpEye,
  SnmpEyeCreation,
  SnmpHistorySample,
  SnmpTrigger,
  SnmpTriggerCreation,
  SnmpTriggerFunction,
  TcpEye,
  TcpEyeCreation,
} from '../schemas/sensors.js';
import type { ClientCore } from './core.js';

export type { AlertMedium, EyesUsageInformation, SnmpAgentEye, SnmpEye, SnmpEyeCreation, SnmpHistorySample, SnmpTrigger, SnmpTriggerCreation, SnmpTriggerFunction, TcpEye, TcpEyeCreation };

export interface TimeWindowQuery {
  /** yyyy-mm-ddThh:mm:ss in UTC; default one week before to. */
  from?: string;
  /** yyyy-mm-ddThh:mm:ss in UTC; default now. */
  to?: string;
}

const DEVICE = '/agent/{agent_id}/device/{device_id}';
const SENSOR = `${DEVICE}/eye/snmp/{sensor_id}`;
const TRIGGER = `${SENSOR}/trigger/{trigger_id}`;

export const sensorOperations = {
  listAgentEyesSNMP(this: ClientCore, agentId: number): Promise<SnmpAgentEye[]> {
    return this.call('listAgentEyesSNMP', 'GET', this.fillPath('/agent/{agent_id}/device/eye/snmp', { agent_id: agentId }));
  },
  listAgentEyesTCP(this: ClientCore, agentId: number): Promise<TcpEye[]> {
    return this.call('listAgentEyesTCP', 'GET', this.fillPath('/agent/{agent_id}/device/eye/tcp', { agent_id: agentId }));
  },
  listEyesSNMP(this: ClientCore, agentId: number, deviceId: number): Promise<SnmpEye[]> {
    return this.call('listEyesSNMP', 'GET', this.fillPath(`${DEVICE}/eye/snmp`, { agent_id: agentId, device_id: deviceId }));
  },
  createEyeSNMP(this: ClientCore, agentId: number, deviceId: number, body: SnmpEyeCreation): Promise<void> {
    return this.call('createEyeSNMP', 'POST', this.fillPath(`${DEVICE}/eye/snmp`, { agent_id: agentId, device_id: deviceId }), { body });
  },
  deleteEyeSNMP(this: ClientCore, agentId: number, deviceId: number, sensorId: number): Promise<void> {
    return this.call('deleteEyeSNMP', 'DELETE', this.fillPath(SENSOR, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId }));
  },
  listEyesSNMPTriggerFunction(this: ClientCore, agentId: number, deviceId: number, sensorId: number): Promise<SnmpTriggerFunction[]> {
    return this.call('listEyesSNMPTriggerFunction', 'GET', this.fillPath(`${SENSOR}/function`, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId }));
  },
  getEyesSNMPHistory(this: ClientCore, agentId: number, deviceId: number, sensorId: number, query: TimeWindowQuery = {}): Promise<SnmpHistorySample[]> {
    return this.call('getEyesSNMPHistory', 'GET', this.fillPath(`${SENSOR}/history`, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId }), {
      query: { ...query },
    });
  },
  listEyesSNMPTrigger(this: ClientCore, agentId: number, deviceId: number, sensorId: number): Promise<SnmpTrigger[]> {
    return this.call('listEyesSNMPTrigger', 'GET', this.fillPath(`${SENSOR}/trigger`, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId }));
  },
  createEyeSNMPTrigger(this: ClientCore, agentId: number, deviceId: number, sensorId: number, body: SnmpTriggerCreation): Promise<void> {
    return this.call('createEyeSNMPTrigger', 'POST', this.fillPath(`${SENSOR}/trigger`, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId }), {
      body,
    });
  },
  deleteEyeSNMPTrigger(this: ClientCore, agentId: number, deviceId: number, sensorId: number, triggerId: number): Promise<void> {
    return this.call('deleteEyeSNMPTrigger', 'DELETE', this.fillPath(TRIGGER, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId, trigger_id: triggerId }));
  },
  createEyeSNMPTriggerAlert(this: ClientCore, agentId: number, deviceId: number, sensorId: number, triggerId: number, mediumName: AlertMedium): Promise<void> {
    const path = this.fillPath(`${TRIGGER}/alert/{medium_name}`, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId, trigger_id: triggerId, medium_name: mediumName });
    return this.call('createEyeSNMPTriggerAlert', 'POST', path, { body: {} });
  },
  deleteEyeSNMPTriggerAlert(this: ClientCore, agentId: number, deviceId: number, sensorId: number, triggerId: number, mediumName: AlertMedium): Promise<void> {
    const path = this.fillPath(`${TRIGGER}/alert/{medium_name}`, { agent_id: agentId, device_id: deviceId, sensor_id: sensorId, trigger_id: triggerId, medium_name: mediumName });
    return this.call('deleteEyeSNMPTriggerAlert', 'DELETE', path);
  },
  listEyesTCP(this: ClientCore, agentId: number, deviceId: number): Promise<TcpEye[]> {
    return this.call('listEyesTCP', 'GET', this.fillPath(`${DEVICE}/eye/tcp`, { agent_id: agentId, device_id: deviceId }));
  },
  createEyeTCP(this: ClientCore, agentId: number, deviceId: number, body: TcpEyeCreation): Promise<void> {
    return this.call('createEyeTCP', 'POST', this.fillPath(`${DEVICE}/eye/tcp`, { agent_id: agentId, device_id: deviceId }), { body });
  },
  deleteEyeTCP(this: ClientCore, agentId: number, deviceId: number, serviceId: number): Promise<void> {
    return this.call('deleteEyeTCP', 'DELETE', this.fillPath(`${DEVICE}/eye/tcp/{service_id}`, { agent_id: agentId, device_id: deviceId, service_id: serviceId }));
  },
  eyesUsageInfo(this: ClientCore, agentId: number): Promise<EyesUsageInformation> {
    return this.call('eyesUsageInfo', 'GET', this.fillPath('/agent/{agent_id}/eye-statistics', { agent_id: agentId }));
  },
};
