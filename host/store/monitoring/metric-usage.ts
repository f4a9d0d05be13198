// What MetricUsageInfo counts: the agent's SNMP and TCP sensors and its custom-driver
// associations (each a "Domotz Sensor" of type custom driver), against its sensor limit.
import { sensorUsage } from './sensors.js';
import type { Store } from '../store.js';

export interface MetricUsage {
  limit: number;
  usage: { customDriver: number; snmp: number; tcp: number; total: number };
}

export async function metricUsage(store: Store, agentId: number): Promise<MetricUsage> {
  const { limit, usage } = await sensorUsage(store, agentId);
  const customDriver = (await store.statement<[number], { n: number }>('SELECT COUNT(*) AS n FROM custom_driver_associations WHERE agent_id = ?').get(agentId))!.n;
  return { limit, usage: { customDriver, snmp: usage.snmp, tcp: usage.tcp, total: usage.snmp + usage.tcp + customDriver } };
}
