// Records of apiUsageInfo (tag meta) and MetricUsageInfo (tag SNMP/TCP SENSORS), reference 1.14.0.
export interface APIUsageInformation {
  by_ip: Array<{ name: string; count: number }>;
  by_key: Array<{ id: number; name: string; count: number }>;
  by_resource: Array<{ name: string; count: number }>;
  concurrent_allowed: number;
  daily_limit: number;
  daily_usage: number;
}

export interface DomotzMetricUsageInformation {
  limit: number;
  usage: { custom_driver: number; snmp: number; tcp: number; total: number };
}

const counted = (name: string) =>
  ({
    type: 'array',
    items: { type: 'object', required: ['name', 'count'], properties: { name: { type: 'string', description: name }, count: { type: 'integer' } } },
  }) as const;

export const apiUsageSchema = {
  type: 'object',
  required: ['by_ip', 'by_key', 'by_resource', 'concurrent_allowed', 'daily_limit', 'daily_usage'],
  properties: {
    by_ip: counted('The caller IP address'),
    by_key: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'count'],
        properties: { id: { type: 'integer', description: "The key's position in the server's keys, from 1" }, name: { type: 'string' }, count: { type: 'integer' } },
      },
    },
    by_resource: counted('The base resource (first path segment)'),
    concurrent_allowed: { type: 'integer', description: 'Calls allowed in a minute (informative: not enforced)' },
    daily_limit: { type: 'integer', description: 'Calls allowed in 24 hours (informative: not enforced)' },
    daily_usage: { type: 'integer', description: 'Calls answered in the last 24 hours' },
  },
} as const;

export const metricUsageSchema = {
  type: 'object',
  required: ['limit', 'usage'],
  properties: {
    limit: { type: 'integer', description: 'How many sensors the agent may have' },
    usage: {
      type: 'object',
      required: ['custom_driver', 'snmp', 'tcp', 'total'],
      properties: { custom_driver: { type: 'integer' }, snmp: { type: 'integer' }, tcp: { type: 'integer' }, total: { type: 'integer' } },
    },
  },
} as const;
