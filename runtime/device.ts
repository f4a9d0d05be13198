// D.device and D.createExternalDevice. The http functions only carry the driver's
// options to the host (host/bridges/http), which builds and sends the real request.
import type { Bridge } from './bridge';
import { raise } from './error-text';
import type { DeviceInfo, HttpAnswer, HttpCall } from './protocol';
import { parse } from './intrinsics';
import { optionsJson } from './options-json';
import { createSnmp } from './snmp';
import { createSsh } from './ssh';
import { createTelnet } from './telnet';
import { createWinrm } from './winrm';

type Callback = (error: unknown, response: unknown, body?: unknown) => void;
/** Buffer.from of the lazily loaded buffer library. */
export type BufferFrom = () => { from(data: unknown, encoding: string): unknown };

function toError(answer: { message: string; code: string }): Error {
  const error = raise(new Error(answer.message)) as Error & { code: string };
  error.code = answer.code;
  return error;
}

export function createHttp(bridge: Bridge, target: number, name: string, bufferApi: BufferFrom) {
  const request = (method: HttpCall['method'], fnName: string) => {
    const fn = `${name}.http.${fnName}`;
    const head = `"target":${target},"method":"${method}","options":`; // HttpCall's fields
    return function (options: unknown, callback: Callback): void {
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(error, response, body) is required`));
      bridge.start('http', head + optionsJson(options, fn), (answer) => {
        const { error, response, bodyKind } = answer as HttpAnswer;
        if (error || !response) return callback(toError(error ?? { code: 'NETWORK_ERROR', message: 'no response' }), null, null);
        // encoding: null asks for the bytes, as a Buffer (request's behaviour).
        if (bodyKind === 'base64') response.body = bufferApi().from(response.body, 'base64');
        // json: true gets the text parsed here, where the run's memory limit counts; text that is not JSON stays text.
        else if (bodyKind === 'json') {
          try {
            response.body = parse(response.body as string);
          } catch {
            // not JSON after all: the driver gets the text, as request gave it
          }
        }
        callback(null, response, response.body);
      });
    };
  };
  return {
    get: request('GET', 'get'),
    post: request('POST', 'post'),
    put: request('PUT', 'put'),
    delete: request('DELETE', 'delete'),
    getTLSCertificate(options: unknown, callback: Callback): void {
      const fn = `${name}.http.getTLSCertificate`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(error, certificate) is required`));
      bridge.start('tls', `"target":${target},"options":${optionsJson(options ?? {}, fn)}`, (answer) => {
        const { error, certificate } = answer as { error: { message: string; code: string } | null; certificate: unknown };
        if (error) callback(toError(error), null);
        else callback(null, certificate);
      });
    },
  };
}

export function createDevice(bridge: Bridge, info: DeviceInfo, createVariable: unknown, bufferApi: BufferFrom) {
  return {
    ip: () => info.ip,
    hostname: () => info.host,
    username: () => info.username,
    password: () => info.password,
    serial: () => info.serial,
    macAddress: () => info.macAddress,
    createVariable,
    http: createHttp(bridge, 0, 'D.device', bufferApi),
    ...createSsh(bridge, 0, 'D.device'),
    ...createTelnet(bridge, 0, 'D.device'),
    ...createSnmp(bridge, 0, 'D.device'),
    ...createWinrm(bridge, 0, 'D.device'),
  };
}

export function createExternalDeviceFactory(bridge: Bridge, bufferApi: BufferFrom) {
  return function createExternalDevice(host: unknown, credentials?: unknown) {
    if (typeof host !== 'string' || host.trim() === '') {
      throw raise(new TypeError('D.createExternalDevice(host, credentials): host must be a non-empty host name or IP'));
    }
    const creds = (credentials && typeof credentials === 'object' ? credentials : {}) as { username?: unknown; password?: unknown };
    const username = creds.username === undefined ? undefined : String(creds.username);
    const password = creds.password === undefined ? undefined : String(creds.password);
    const answer = bridge.call('external', { host, credentials: { username, password } }) as { ok: boolean; target?: number; error?: string } | undefined;
    if (!answer || answer.ok !== true || typeof answer.target !== 'number') throw raise(new Error(answer?.error ?? 'D.createExternalDevice: the host did not answer'));
    const target = answer.target;
    return {
      ip: () => host,
      hostname: () => host,
      username: () => username ?? null,
      password: () => password ?? null,
      http: createHttp(bridge, target, 'externalDevice', bufferApi),
      ...createSsh(bridge, target, 'externalDevice'),
      ...createTelnet(bridge, target, 'externalDevice'),
      ...createSnmp(bridge, target, 'externalDevice'),
      ...createWinrm(bridge, target, 'externalDevice'),
    };
  };
}
