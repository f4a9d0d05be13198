// Closing BullMQ objects while Redis is gone: close() waits for a server that may never come
// back (ioredis retries for ever on the workers' connections), so every close is bounded and
// followed by a disconnect. An agent stopping during a Redis outage still exits promptly.

/** true when work settled (either way) within ms. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Closes a BullMQ Queue or Worker, disconnecting it when it has not closed within ms. */
export async function closeWithin(closable: { close(): Promise<void>; disconnect(): Promise<void> } | undefined, ms = 3_000): Promise<void> {
  if (!closable) return;
  const closing = closable.close();
  closing.catch(() => undefined);
  if (await settlesWithin(closing, ms)) return;
  // disconnect() can wait for the server too: bounded alike, and then left to itself.
  const disconnecting = closable.disconnect();
  disconnecting.catch(() => undefined);
  await settlesWithin(disconnecting, ms);
}
