// JSON text columns: parsed leniently on the way out so one damaged row never breaks a list.
export function parseJsonColumn<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
