// How an error a driver threw is shown: name, message and only the driver's own stack
// frames (so line numbers point into the driver, never into driverbox). Pure: the host
// uses it too, for errors thrown by the driver's top-level code.

export function describeDriverError(error: { name?: string; message?: string; stack?: string }, driverFilename: string): string {
  const head = `${error.name ?? 'Error'}: ${error.message ?? ''}`;
  const frames = (error.stack ?? '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line.includes(`(${driverFilename}:`) || line.startsWith(`at ${driverFilename}:`));
  return frames.length ? `${head}\n    ${frames.join('\n    ')}` : head;
}

/** Anything a driver may throw: an Error, a string, null… */
export function describeError(error: unknown, driverFilename: string): string {
  if (error instanceof Error) return describeDriverError(error, driverFilename);
  return `Uncaught ${typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error))}`;
}
