// A driver's options to D.device.http.getTLSCertificate, type-checked (they are the driver's to
// forge): only plain values reach the wire, the port as a number and useHostname as the flag it is.
import { describe, isPlainObject, numberOption } from '../../untrusted-input/plain-values.js';

export type TlsOptions = {
  port: number;
  useHostname: boolean;
};

/** The options read, or a message naming what is wrong (answered as INVALID_OPTIONS). */
export function readTlsOptions(options: unknown): TlsOptions | string {
  if (!isPlainObject(options)) return `options must be an object such as { port: 443 } (got ${describe(options)})`;
  const port = options.port === undefined || options.port === null ? 443 : numberOption(options.port);
  if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) return `port must be an integer from 1 to 65535 (got ${describe(options.port)})`;
  return { port, useHostname: options.useHostname !== false };
}
