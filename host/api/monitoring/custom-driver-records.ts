// Store rows of the custom driver library as the API's records, and request bodies as store input.
import type { AssociationRow, ParameterValueInput } from '../../store/drivers/associations.js';
import type { CustomDriverChange, CustomDriverRow } from '../../store/drivers/custom-drivers.js';
import type { InputProblem } from '../../store/drivers/driver-input.js';
import { formatApiTime } from '../../store/db/time.js';
import { ApiError } from './api-error.js';
import { withoutNulls } from './present.js';
import type {
  CustomDriver,
  CustomDriverAssociation,
  CustomDriverCreation,
  CustomDriverDetails,
  CustomDriverParameterValue,
  ParameterValue,
} from './schemas/custom-drivers.js';

export function customDriverRecord(driver: CustomDriverRow): CustomDriver {
  return {
    code_inspection: driver.inspection.code_inspection,
    ...(driver.description === null ? {} : { description: driver.description }),
    device_ids: driver.deviceIds,
    id: driver.id,
    is_valid: driver.isValid,
    minimal_sample_period: driver.minimalSamplePeriod,
    name: driver.name,
    requires_credentials: driver.requiresCredentials,
    type: driver.type,
  };
}

export function customDriverDetails(driver: CustomDriverRow): CustomDriverDetails {
  const { device_ids: _, ...common } = customDriverRecord(driver);
  return {
    ...common,
    actions: driver.inspection.actions,
    code: driver.source,
    // As the reference: errors only for invalid code, parameters only when there are some.
    ...(driver.isValid ? {} : { errors: driver.inspection.errors.map((e) => withoutNulls(e)) }),
    ...(driver.parameters.length
      ? {
          parameters: driver.parameters.map((p) => ({
            default_value: p.defaultValue as ParameterValue | null,
            ...(p.description === null ? {} : { description: p.description }),
            id: p.id,
            name: p.name,
            value_type: p.valueType,
          })),
        }
      : {}),
    version: driver.version,
  };
}

export function associationRecord(association: AssociationRow): CustomDriverAssociation {
  return {
    custom_driver_id: association.customDriverId,
    device_id: association.deviceId,
    id: association.id,
    last_inspection_time: formatApiTime(association.lastInspectionTime),
    parameters: association.parameters.map((p) => ({
      custom_driver_parameter_id: p.parameterId,
      ...(p.description === null ? {} : { description: p.description }),
      name: p.name,
      value: p.value as ParameterValue | null,
      value_type: p.valueType,
    })),
    sample_period: association.samplePeriod,
    status: association.status,
    used_variables: association.usedVariables,
  };
}

export function driverInput(body: Partial<CustomDriverCreation>): CustomDriverChange {
  const input: CustomDriverChange = {};
  if (body.name !== undefined) input.name = body.name;
  if (body.description !== undefined) input.description = body.description;
  if (body.code !== undefined) input.code = body.code;
  if (body.minimal_sample_period !== undefined) input.minimalSamplePeriod = body.minimal_sample_period;
  if (body.requires_credentials !== undefined) input.requiresCredentials = body.requires_credentials;
  if (body.type !== undefined) input.type = body.type;
  if (body.parameters !== undefined) {
    input.parameters = body.parameters.map((p) => ({ name: p.name, description: p.description ?? null, valueType: p.value_type, defaultValue: p.default_value ?? null }));
  }
  return input;
}

export function parameterValuesInput(values: readonly CustomDriverParameterValue[] | undefined): ParameterValueInput[] {
  return (values ?? []).map((v) => ({ parameterId: v.custom_driver_parameter_id, value: v.value }));
}

/** 422 naming every problem found, as schema validation does. */
export function refuseInput(problems: readonly InputProblem[]): void {
  if (problems.length === 0) return;
  const detail = problems.map((p) => ({ loc: p.loc, msg: p.msg, type: 'value_error' }));
  throw new ApiError(422, 'VALIDATION_ERROR', detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '), detail);
}
