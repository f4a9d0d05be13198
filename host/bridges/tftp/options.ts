// A driver's options to D.tftpServer.accept, type-checked (they are the driver's to forge).
const MAX_FILE_NAME_CHARS = 255;

/** The options read, or a message naming what is wrong (answered as INVALID_OPTIONS). */
export function tftpOptions(options: Record<string, unknown>): { fileName: string | null; timeoutMs: number | null; port: number | null } | string {
  const { filePath, timeout, port } = options;
  if (filePath !== undefined && filePath !== null) {
    if (typeof filePath !== 'string' || filePath === '' || filePath.length > MAX_FILE_NAME_CHARS || /[\0\r\n]/.test(filePath)) {
      return `filePath must be a file name of 1 to ${MAX_FILE_NAME_CHARS} characters (got ${typeof filePath === 'string' ? JSON.stringify(filePath.slice(0, 40)) : typeof filePath})`;
    }
  }
  if (timeout !== undefined && timeout !== null && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0)) {
    return `timeout must be a number of milliseconds above 0 (got ${JSON.stringify(timeout) ?? typeof timeout})`;
  }
  if (port !== undefined && port !== null && (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535)) {
    return `port must be a UDP port number (got ${JSON.stringify(port) ?? typeof port})`;
  }
  return { fileName: (filePath as string | undefined) ?? null, timeoutMs: (timeout as number | undefined) ?? null, port: (port as number | undefined) ?? null };
}
