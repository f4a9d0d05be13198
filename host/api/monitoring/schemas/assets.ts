// Records of the assets tag (reference 1.14.0): the device type catalogue.
export type { DetectedDeviceType, DeviceBaseType } from '../../../store/fleet/device-types.js';

export const deviceBaseTypeSchema = {
  type: 'object',
  required: ['id', 'identifier', 'label', 'vital'],
  properties: {
    id: { type: 'integer', description: "The id a device's type.id names" },
    identifier: { type: 'string' },
    label: { type: 'string' },
    vital: { type: 'boolean', description: 'Whether a device of this type is VITAL as soon as it is recognised' },
  },
} as const;

export const detectedDeviceTypeSchema = {
  type: 'object',
  required: ['id', 'identifier'],
  properties: {
    id: { type: 'integer', description: "The id a device's type.detected_id names" },
    identifier: { type: 'string' },
    label: { type: 'string' },
    type_id: { type: 'integer', description: 'The base type' },
    capabilities: { type: 'array', items: { type: 'string' } },
  },
} as const;
