// A session key's part for the driver a run runs: a digest of its file name and source (never the
// source), so that a jar one driver logged in is never another driver's. Kept for recent drivers.
import { createHash } from 'node:crypto';

/**
 * Digests of recent drivers by source, then file name: a host runs a few drivers many times.
 * Only sources up to 64 KiB are kept (32 of them at most): the cache must not hold drivers alive.
 */
const driverDigests = new Map<string, Map<string, string>>();
const CACHED_SOURCE_CHARS = 64 * 1024;

/** A session key's part for the driver: a digest of its file name and source (never the source). */
export function driverDigest(driver: { filename: string; source: string } | undefined): string {
  if (!driver) return 'driver:-';
  const cacheable = driver.source.length <= CACHED_SOURCE_CHARS;
  let byName = cacheable ? driverDigests.get(driver.source) : undefined;
  let digest = byName?.get(driver.filename);
  if (digest === undefined) {
    digest = `driver:${createHash('sha256').update(driver.filename).update('\0').update(driver.source).digest('base64url').slice(0, 22)}`;
    if (!cacheable) return digest;
    if (!byName) {
      if (driverDigests.size >= 32) driverDigests.clear();
      byName = new Map();
      driverDigests.set(driver.source, byName);
    }
    if (byName.size >= 16) byName.clear();
    byName.set(driver.filename, digest);
  }
  return digest;
}
