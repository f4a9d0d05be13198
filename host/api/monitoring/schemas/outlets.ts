// Power outlets of a device (1.14.0): the outlet record and the body of updateDeviceOutlet.
export type OutletActionValue = 'on' | 'off' | 'cycle';

export interface DeviceOutlet {
  id: string;
  device_id: number;
  name: string;
  custom_name?: string;
  power: 'ON' | 'OFF' | 'unknown';
  can_write: boolean;
  /** Ids of the devices attached to (powered by) the outlet. */
  links: number[];
}

export interface DeviceOutletUpdate {
  /** The new custom name; absent or null removes it. */
  custom_name?: string | null;
}

export const deviceOutletSchema = {
  type: 'object',
  required: ['id', 'device_id', 'name', 'power', 'can_write', 'links'],
  properties: {
    id: { type: 'string' },
    device_id: { type: 'integer' },
    name: { type: 'string' },
    custom_name: { type: 'string' },
    power: { type: 'string', enum: ['ON', 'OFF', 'unknown'] },
    can_write: { type: 'boolean' },
    links: { type: 'array', items: { type: 'integer' } },
  },
} as const;

export const deviceOutletUpdateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { custom_name: { type: ['string', 'null'], maxLength: 255, description: 'The custom name; null or absent removes it' } },
} as const;
