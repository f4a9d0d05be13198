// Records of the power operations: which actions a device offers now.
export type PowerActionField = 'on' | 'off' | 'cycle' | 'software-reboot';

export interface DevicePowerAction {
  on: boolean;
  off: boolean;
  cycle: boolean;
  software_reboot: boolean;
}

export const devicePowerActionSchema = {
  type: 'object',
  required: ['on', 'off', 'cycle', 'software_reboot'],
  properties: { on: { type: 'boolean' }, off: { type: 'boolean' }, cycle: { type: 'boolean' }, software_reboot: { type: 'boolean' } },
} as const;
