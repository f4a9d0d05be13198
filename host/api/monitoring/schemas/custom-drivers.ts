// Records of the "Custom Drivers" operations: TypeScript types for the client and JSON schemas
// for the server (request validation, response serialization, the OpenAPI document). Field
// names are the reference's; createCustomDriver / updateCustomDriver bodies and the `version`
// field of CustomDriverDetails are driverbox extensions.

export type ParameterValueType = 'STRING' | 'NUMBER' | 'LIST';
export type CustomDriverType = 'GENERIC' | 'CONFIGURATION_MANAGEMENT';
/** A parameter value: a number for NUMBER, a string for STRING, strings for LIST. */
export type ParameterValue = string | number | string[];

export interface CodeInspection {
  /** The entry points whose run saves data (get_status, backup), those the driver defines. */
  data_saving_functions: string[];
  has_independent_variables: boolean;
  has_parameters: boolean;
  has_table: boolean;
}

export interface CustomDriver {
  code_inspection: CodeInspection;
  description?: string;
  device_ids: number[];
  id: number;
  is_valid: boolean;
  minimal_sample_period: number;
  name: string;
  requires_credentials: boolean;
  type: CustomDriverType;
}

export interface CustomDriverAction {
  documentation: string;
  /** custom_N has id N (1–30). */
  id: number;
  label: string;
  line: number;
}

export interface CustomDriverCodeError {
  line?: number;
  message?: string;
  type: string;
}

export interface CustomDriverParameter {
  default_value?: ParameterValue | null;
  description?: string;
  id: number;
  name: string;
  value_type: ParameterValueType;
}

export interface CustomDriverDetails {
  actions: CustomDriverAction[];
  code: string;
  code_inspection: CodeInspection;
  description?: string;
  /** Only when the code is invalid. */
  errors?: CustomDriverCodeError[];
  id: number;
  is_valid: boolean;
  minimal_sample_period: number;
  name: string;
  /** Only when the driver has parameters. */
  parameters?: CustomDriverParameter[];
  requires_credentials: boolean;
  type: CustomDriverType;
  /** driverbox extension: 1, then +1 for every new code. */
  version: number;
}

export interface CustomDriverAssociationParameter {
  custom_driver_parameter_id: number;
  description?: string;
  name: string;
  value?: ParameterValue | null;
  value_type: ParameterValueType;
}

export interface CustomDriverAssociation {
  custom_driver_id: number;
  device_id: number;
  id: number;
  last_inspection_time: string;
  parameters?: CustomDriverAssociationParameter[];
  sample_period: number;
  status: 'ENABLED' | 'DISABLED';
  used_variables: number;
}

export interface CustomDriverParameterValue {
  custom_driver_parameter_id: number;
  /** null or absent: the driver's default. */
  value?: ParameterValue | null;
}

export interface CustomDriverAssociationCreation {
  credentials?: { username: string; password: string };
  parameters?: CustomDriverParameterValue[];
  sample_period?: number;
}

export interface CustomDriverAssociationCreationResult {
  error?: string;
  result?: number;
}

export interface CustomDriverAssociationParameterCreation {
  parameters: CustomDriverParameterValue[];
}

export interface CustomDriverExecutionResult {
  elapsed?: number;
  errorMessage?: string;
  errorType?: string;
  log?: string[];
  outcome: 'success' | 'failure' | 'undefined';
}

/** driverbox extension: the body of createCustomDriver. */
export interface CustomDriverCreation {
  name: string;
  description?: string | null;
  code: string;
  parameters?: Array<{ name: string; description?: string | null; value_type: ParameterValueType; default_value?: ParameterValue | null }>;
  minimal_sample_period?: number;
  requires_credentials?: boolean;
  type?: CustomDriverType;
}

/** driverbox extension: the body of updateCustomDriver; fields left out keep their value. */
export type CustomDriverUpdate = Partial<CustomDriverCreation>;

// ---- JSON schemas -------------------------------------------------------------------------

const nullableString = { type: ['string', 'null'] } as const;
const optionalString = { type: 'string' } as const;
const anyValue = { description: 'A number (NUMBER), a string (STRING) or an array of strings (LIST); null when unset' } as const;
const valueType = { type: 'string', enum: ['STRING', 'NUMBER', 'LIST'] } as const;
const driverType = { type: 'string', enum: ['GENERIC', 'CONFIGURATION_MANAGEMENT'] } as const;

export const codeInspectionSchema = {
  type: 'object',
  required: ['data_saving_functions', 'has_independent_variables', 'has_parameters', 'has_table'],
  properties: {
    data_saving_functions: { type: 'array', items: { type: 'string' }, description: 'The entry points whose run saves data (get_status, backup); one at a time per device' },
    has_independent_variables: { type: 'boolean' },
    has_parameters: { type: 'boolean' },
    has_table: { type: 'boolean' },
  },
} as const;

export const customDriverSchema = {
  type: 'object',
  required: ['code_inspection', 'device_ids', 'id', 'is_valid', 'minimal_sample_period', 'name', 'requires_credentials', 'type'],
  properties: {
    code_inspection: codeInspectionSchema,
    description: optionalString,
    device_ids: { type: 'array', items: { type: 'integer' } },
    id: { type: 'integer' },
    is_valid: { type: 'boolean' },
    minimal_sample_period: { type: 'integer' },
    name: { type: 'string' },
    requires_credentials: { type: 'boolean' },
    type: driverType,
  },
} as const;

export const customDriverDetailsSchema = {
  type: 'object',
  required: ['actions', 'code', 'code_inspection', 'id', 'is_valid', 'minimal_sample_period', 'name', 'requires_credentials', 'type', 'version'],
  properties: {
    actions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['documentation', 'id', 'label', 'line'],
        properties: { documentation: { type: 'string' }, id: { type: 'integer' }, label: { type: 'string' }, line: { type: 'integer' } },
      },
    },
    code: { type: 'string' },
    code_inspection: codeInspectionSchema,
    description: optionalString,
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type'],
        properties: { line: { type: 'integer' }, message: { type: 'string' }, type: { type: 'string' } },
      },
    },
    id: { type: 'integer' },
    is_valid: { type: 'boolean' },
    minimal_sample_period: { type: 'integer' },
    name: { type: 'string' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'value_type'],
        properties: { default_value: anyValue, description: optionalString, id: { type: 'integer' }, name: { type: 'string' }, value_type: valueType },
      },
    },
    requires_credentials: { type: 'boolean' },
    type: driverType,
    version: { type: 'integer', description: 'driverbox extension: 1, then +1 for every new code' },
  },
} as const;

export const customDriverAssociationSchema = {
  type: 'object',
  required: ['custom_driver_id', 'device_id', 'id', 'last_inspection_time', 'sample_period', 'status', 'used_variables'],
  properties: {
    custom_driver_id: { type: 'integer' },
    device_id: { type: 'integer' },
    id: { type: 'integer' },
    last_inspection_time: { type: 'string', description: 'yyyy-mm-ddThh:mm:ss in UTC: the last run of the driver on the device (creation until then)' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['custom_driver_parameter_id', 'name', 'value_type'],
        properties: {
          custom_driver_parameter_id: { type: 'integer' },
          description: optionalString,
          name: { type: 'string' },
          value: anyValue,
          value_type: valueType,
        },
      },
    },
    sample_period: { type: 'integer' },
    status: { type: 'string', enum: ['ENABLED', 'DISABLED'] },
    used_variables: { type: 'integer' },
  },
} as const;

const parameterValuesSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['custom_driver_parameter_id'],
    additionalProperties: false,
    properties: { custom_driver_parameter_id: { type: 'integer', minimum: 0, maximum: 2147483647 }, value: anyValue },
  },
} as const;

export const associationCreationSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    credentials: {
      type: 'object',
      required: ['username', 'password'],
      additionalProperties: false,
      properties: { username: { type: 'string' }, password: { type: 'string' } },
    },
    parameters: parameterValuesSchema,
    sample_period: { type: 'integer', description: 'One of 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400; at least minimal_sample_period (its default)' },
  },
} as const;

export const associationParameterCreationSchema = {
  type: 'object',
  required: ['parameters'],
  additionalProperties: false,
  properties: { parameters: parameterValuesSchema },
} as const;

export const associationCreationResultSchema = {
  type: 'object',
  properties: {
    error: { type: 'string', description: 'Why the association was not made (the driver is invalid or already applied, credentials are missing)' },
    result: { type: 'integer', description: 'The id of the new association' },
  },
} as const;

export const executionResultSchema = {
  type: 'object',
  required: ['outcome'],
  properties: {
    elapsed: { type: 'integer', description: 'ms' },
    errorMessage: optionalString,
    errorType: optionalString,
    log: { type: 'array', items: { type: 'string' } },
    outcome: { type: 'string', enum: ['success', 'failure', 'undefined'] },
  },
} as const;

const parameterDefinitionsSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'value_type'],
    additionalProperties: false,
    properties: { name: { type: 'string' }, description: nullableString, value_type: valueType, default_value: anyValue },
  },
} as const;

const driverFields = {
  name: { type: 'string', minLength: 1, maxLength: 255 },
  description: nullableString,
  code: { type: 'string', minLength: 1, description: 'The driver source (JavaScript using D)' },
  parameters: parameterDefinitionsSchema,
  minimal_sample_period: { type: 'integer', description: 'One of the sample periods; default 300' },
  requires_credentials: { type: 'boolean', description: 'Default: whether the code reads the device credentials or sends an auth option' },
  type: driverType,
} as const;

export const customDriverCreationSchema = {
  type: 'object',
  required: ['name', 'code'],
  additionalProperties: false,
  properties: driverFields,
} as const;

export const customDriverUpdateSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: driverFields,
} as const;
