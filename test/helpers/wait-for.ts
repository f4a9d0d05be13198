// Polls a condition until it holds or the time is up; the error names what was awaited.
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000, everyMs = 25): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
