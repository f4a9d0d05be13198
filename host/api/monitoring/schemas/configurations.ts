// Records of the Configuration Management operations (reference 1.14.0): a configuration's
// metadata in the history list, one configuration with its text, and the body that creates one.
export interface DeviceConfigurationMetadata {
  label: string;
  running_md5: string;
  startup_md5?: string;
  /** yyyy-mm-ddThh:mm:ss+00:00, the form getDeviceConfiguration takes back. */
  timestamp: string;
}

export interface DeviceConfiguration extends DeviceConfigurationMetadata {
  running: string;
  /** Skipped when none was saved or it is the running configuration. */
  startup?: string;
}

export interface DeviceConfigurationCreate {
  label: string;
  /** Base64 of the running configuration (UTF-8 text). */
  running: string;
  /** Base64 of the startup configuration. */
  startup?: string;
}

const metadataProperties = {
  label: { type: 'string', description: 'Human readable configuration label' },
  running_md5: { type: 'string', description: 'MD5 hash of the running configuration' },
  startup_md5: { type: 'string', description: 'MD5 hash of the startup configuration' },
  timestamp: { type: 'string', description: 'When the backup was made, yyyy-mm-ddThh:mm:ss+00:00 (UTC)' },
} as const;

export const deviceConfigurationMetadataSchema = {
  type: 'object',
  description: 'A backed up device configuration metadata',
  required: ['label', 'running_md5', 'timestamp'],
  properties: metadataProperties,
} as const;

export const deviceConfigurationSchema = {
  type: 'object',
  description: "A device's configuration",
  required: ['label', 'running_md5', 'timestamp', 'running'],
  properties: {
    ...metadataProperties,
    running: { type: 'string', description: 'The running configuration' },
    startup: { type: 'string', description: 'The startup configuration, skipped if not saved or if it is the same as the running configuration' },
  },
} as const;

export const deviceConfigurationCreateSchema = {
  type: 'object',
  description: 'Device configuration data to create a backup',
  required: ['label', 'running'],
  additionalProperties: false,
  properties: {
    label: { type: 'string', minLength: 1, maxLength: 255, description: 'Human readable configuration label' },
    running: { type: 'string', description: 'Base64 encoded running configuration' },
    startup: { type: 'string', description: 'Optional base64 encoded startup configuration' },
  },
} as const;
