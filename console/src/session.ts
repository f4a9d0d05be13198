// The API key of this browser tab: kept in sessionStorage only (gone when the tab closes),
// never in localStorage, a cookie or the URL.
const KEY = 'driverbox.apiKey';

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function keepKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // storage unavailable: nothing was kept
  }
}
