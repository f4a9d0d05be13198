// "Custom Drivers": the driver library, associations of a driver with a device, and executing
// an action. createCustomDriver, updateCustomDriver and deleteCustomDriver are driverbox
// extensions (the cloud API has no way to add a driver); see docs/reference/monitoring-api/custom-drivers.md.
import type { FastifyInstance } from 'fastify';
import { requireAgent, requireDevice } from '../access.js';
import {
  createAssociation,
  deleteAssociation,
  getDriverAssociation,
  listAssociations,
  missingParameterProblems,
  parameterValueProblems,
  updateAssociationParameters,
} from '../../../store/drivers/associations.js';
import { createCustomDriver, customDriverProblems, deleteCustomDriver, getCustomDriver, listCustomDrivers, updateCustomDriver, type NewCustomDriver } from '../../../store/drivers/custom-drivers.js';
import { samplePeriodProblem } from '../../../store/drivers/driver-input.js';
import { getDevice } from '../../../store/fleet/devices.js';
import { deviceSecrets, maskFor } from '../../../store/runs/run-secrets.js';
import { StoreError } from '../../../contract/errors.js';
import { ApiError, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import {
  associationRecord,
  customDriverDetails,
  customDriverRecord,
  driverInput,
  parameterValuesInput,
  refuseInput,
} from '../custom-driver-records.js';
import { planExecution, runAndRecord, toExecutionResult } from '../execute-action.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  associationCreationResultSchema,
  associationCreationSchema,
  associationParameterCreationSchema,
  customDriverAssociationSchema,
  customDriverCreationSchema,
  customDriverDetailsSchema,
  customDriverSchema,
  customDriverUpdateSchema,
  executionResultSchema,
  type CustomDriverAssociationCreation,
  type CustomDriverAssociationParameterCreation,
  type CustomDriverCreation,
  type CustomDriverUpdate,
} from '../schemas/custom-drivers.js';

const TAGS = ['Custom Drivers'];
const EXTENSION = 'driverbox extension, not in the cloud API: ';

interface DriverParams {
  custom_driver_id: number;
}
interface AgentParams {
  agent_id: number;
}
interface AssociationParams {
  custom_driver_id: number;
  association_id: number;
}
interface DeviceParams {
  custom_driver_id: number;
  agent_id: number;
  device_id: number;
}

export function registerCustomDriverRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;
  const driverOr404 = async (id: number) => {
    const driver = await getCustomDriver(store, id);
    if (!driver) throw notFound('custom driver', id);
    return driver;
  };

  const list: ApiRouteSchema = {
    operationId: 'listCustomDrivers',
    tags: TAGS,
    summary: 'Retrieves the list of available Custom Drivers',
    response: { 200: { type: 'array', items: customDriverSchema } },
  };
  app.get('/custom-driver', { schema: list }, async () => (await listCustomDrivers(store)).map(customDriverRecord));

  const create: ApiRouteSchema = {
    operationId: 'createCustomDriver',
    tags: TAGS,
    summary: 'Adds a Custom Driver to the library',
    description: `${EXTENSION}the code is inspected (actions, errors, code_inspection); invalid code is stored with is_valid false.`,
    body: customDriverCreationSchema,
    response: { 201: customDriverDetailsSchema },
  };
  app.post<{ Body: CustomDriverCreation }>('/custom-driver', { schema: create }, async (request, reply) => {
    const input = driverInput(request.body) as NewCustomDriver;
    refuseInput(customDriverProblems(input));
    return reply.code(201).send(customDriverDetails(await createCustomDriver(store, input)));
  });

  const get: ApiRouteSchema = {
    operationId: 'getCustomDriver',
    tags: TAGS,
    summary: 'Returns details of a Custom Driver',
    params: idParams('custom_driver_id'),
    response: { 200: customDriverDetailsSchema },
  };
  app.get<{ Params: DriverParams }>('/custom-driver/:custom_driver_id', { schema: get }, async (request) =>
    customDriverDetails(await driverOr404(request.params.custom_driver_id)),
  );

  const update: ApiRouteSchema = {
    operationId: 'updateCustomDriver',
    tags: TAGS,
    summary: 'Changes a Custom Driver; new code makes a new version, inspected again',
    description: `${EXTENSION}fields left out keep their value; parameters replace the list and are matched by name, so associations keep their values.`,
    params: idParams('custom_driver_id'),
    body: customDriverUpdateSchema,
    response: { 200: customDriverDetailsSchema },
  };
  app.put<{ Params: DriverParams; Body: CustomDriverUpdate }>('/custom-driver/:custom_driver_id', { schema: update }, async (request) => {
    await driverOr404(request.params.custom_driver_id);
    const change = driverInput(request.body);
    refuseInput(customDriverProblems(change));
    return customDriverDetails(await updateCustomDriver(store, request.params.custom_driver_id, change));
  });

  const remove: ApiRouteSchema = {
    operationId: 'deleteCustomDriver',
    tags: TAGS,
    summary: 'Removes a Custom Driver from the library',
    description: `${EXTENSION}409 while the driver is applied to a device (delete its associations first).`,
    params: idParams('custom_driver_id'),
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: DriverParams }>('/custom-driver/:custom_driver_id', { schema: remove }, async (request, reply) => {
    await deleteCustomDriver(store, request.params.custom_driver_id);
    return reply.code(204).send();
  });

  const listAssoc: ApiRouteSchema = {
    operationId: 'listCustomDriverAssociations',
    tags: TAGS,
    summary: 'Retrieves a list of all Custom Driver associations for an agent',
    params: idParams('agent_id'),
    response: { 200: { type: 'array', items: customDriverAssociationSchema } },
  };
  app.get<{ Params: AgentParams }>('/custom-driver/agent/:agent_id/association', { schema: listAssoc }, async (request) => {
    await requireAgent(store, request.params.agent_id);
    return (await listAssociations(store, request.params.agent_id)).map(associationRecord);
  });

  const createAssoc: ApiRouteSchema = {
    operationId: 'createCustomDriverAssociation',
    tags: TAGS,
    summary: 'Apply a Custom Driver to a device',
    description:
      '201 {result: id} when applied. 201 {error} when the driver or device refuses it: invalid driver code, the driver already applied ' +
      'to the device, or credentials required with none given nor saved. Bad sample_period or parameter values: 422. ' +
      'Credentials are saved for the device with scope CUSTOM_DRIVER_MANAGEMENT.',
    params: idParams('custom_driver_id', 'agent_id', 'device_id'),
    body: associationCreationSchema,
    response: { 201: associationCreationResultSchema },
  };
  app.post<{ Params: DeviceParams; Body: CustomDriverAssociationCreation | undefined }>(
    '/custom-driver/:custom_driver_id/agent/:agent_id/device/:device_id/association',
    { schema: createAssoc },
    async (request, reply) => {
      const { custom_driver_id, agent_id, device_id } = request.params;
      await requireDevice(store, agent_id, device_id);
      const driver = await driverOr404(custom_driver_id);
      const body = request.body ?? {};
      const values = parameterValuesInput(body.parameters);
      const period = body.sample_period === undefined ? null : samplePeriodProblem(body.sample_period, driver.minimalSamplePeriod);
      refuseInput([
        ...(period ? [{ loc: ['body', 'sample_period'], msg: period }] : []),
        ...parameterValueProblems(driver, values, ['body', 'parameters']),
        ...missingParameterProblems(driver, values, ['body', 'parameters']),
      ]);
      try {
        const association = await createAssociation(store, {
          customDriverId: driver.id,
          agentId: agent_id,
          deviceId: device_id,
          samplePeriod: body.sample_period,
          parameters: values,
          credentials: body.credentials,
        });
        return reply.code(201).send({ result: association.id });
      } catch (error) {
        if (error instanceof StoreError && error.code === 'CONFLICT') return reply.code(201).send({ error: error.message });
        throw error;
      }
    },
  );

  const execute: ApiRouteSchema = {
    operationId: 'executeCustomDriverAction',
    tags: TAGS,
    summary: 'Execute a Custom Driver action on an associated device',
    description:
      'action_id N runs custom_N (1-30); driverbox extension: 0 runs get_status. validate is not executable. The run uses the ' +
      "device's address and saved credentials and the association's parameters; its result is stored as the device's variables. " +
      '404 when the driver is not applied to the device or defines no such action, 409 when its code is invalid, 503 when the server runs no drivers.',
    params: {
      ...idParams('custom_driver_id', 'agent_id', 'device_id'),
      properties: {
        ...idParams('custom_driver_id', 'agent_id', 'device_id').properties,
        action_id: { type: 'integer', minimum: 0, maximum: 30, description: 'custom_N has id N (1-30); 0 is get_status (driverbox extension)' },
      },
      required: ['custom_driver_id', 'agent_id', 'device_id', 'action_id'],
    },
    response: { 200: executionResultSchema },
  };
  app.post<{ Params: DeviceParams & { action_id: number } }>(
    '/custom-driver/:custom_driver_id/agent/:agent_id/device/:device_id/execute/:action_id',
    { schema: execute },
    async (request) => {
      const p = request.params;
      const plan = await planExecution(store, { customDriverId: p.custom_driver_id, agentId: p.agent_id, deviceId: p.device_id, actionId: p.action_id });
      if (!ctx.host) {
        throw new ApiError(503, 'EXECUTION_UNAVAILABLE', 'this server was started without a driver host, so it cannot execute custom driver actions');
      }
      const result = await runAndRecord(store, ctx, plan, request.log);
      return toExecutionResult(result, maskFor(await deviceSecrets(store, plan.device.id)));
    },
  );

  const deleteAssoc: ApiRouteSchema = {
    operationId: 'deleteCustomDriverAssociation',
    tags: TAGS,
    summary: 'Remove a Custom Driver from a device. This irreversibly deletes all variables created by the driver for that device',
    params: idParams('custom_driver_id', 'association_id'),
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: AssociationParams }>('/custom-driver/:custom_driver_id/association/:association_id', { schema: deleteAssoc }, async (request, reply) => {
    await driverOr404(request.params.custom_driver_id);
    await deleteAssociation(store, request.params.custom_driver_id, request.params.association_id);
    return reply.code(204).send();
  });

  const updateAssoc: ApiRouteSchema = {
    operationId: 'updateCustomDriverAssociationParameters',
    tags: TAGS,
    summary: 'Update the parameters for a Custom Driver association',
    description: 'Sets the given parameters; a null value resets one to the driver default. Parameters not given keep their value.',
    params: idParams('custom_driver_id', 'association_id'),
    body: associationParameterCreationSchema,
    response: { 204: { type: 'null' } },
  };
  app.put<{ Params: AssociationParams; Body: CustomDriverAssociationParameterCreation }>(
    '/custom-driver/:custom_driver_id/association/:association_id',
    { schema: updateAssoc },
    async (request, reply) => {
      const { custom_driver_id, association_id } = request.params;
      const driver = await driverOr404(custom_driver_id);
      await getDriverAssociation(store, custom_driver_id, association_id);
      const values = parameterValuesInput(request.body.parameters);
      refuseInput(parameterValueProblems(driver, values, ['body', 'parameters']));
      await updateAssociationParameters(store, custom_driver_id, association_id, values);
      return reply.code(204).send();
    },
  );
}
