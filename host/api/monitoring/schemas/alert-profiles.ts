// Records of the alert-profile operations (reference 1.14.0): a profile and its bindings to an
// agent and to the devices of an agent.
export interface AlertProfile {
  id: number;
  name?: string;
  description?: string;
  tag?: string;
  events?: string[];
  is_enabled?: boolean;
}

export interface AlertProfileAgentBinding {
  alert_profile_id: number;
}

export interface AlertProfileDeviceBinding {
  alert_profile_id: number;
  device_id: number;
}

export const alertProfileSchema = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'integer', description: 'The id of the alert profile' },
    name: { type: 'string', description: 'The symbolic name of the profile' },
    description: { type: 'string' },
    tag: { type: 'string', description: 'A label of the profile' },
    events: { type: 'array', items: { type: 'string' }, description: 'The events the profile alerts on' },
    is_enabled: { type: 'boolean' },
  },
} as const;

export const alertProfileAgentBindingSchema = {
  type: 'object',
  required: ['alert_profile_id'],
  properties: { alert_profile_id: { type: 'integer' } },
} as const;

export const alertProfileDeviceBindingSchema = {
  type: 'object',
  required: ['alert_profile_id', 'device_id'],
  properties: { alert_profile_id: { type: 'integer' }, device_id: { type: 'integer' } },
} as const;
