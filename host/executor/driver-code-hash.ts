// The content hash of a driver's source. The inventory records it for each driver file it loads
// (the operator's code); a run compares the hash of the code it is about to run with that record
// to choose its external-host policy, so the operator's privileges follow the code, not the id.
import { createHash } from 'node:crypto';

/** SHA-256 of the source's UTF-8 bytes, hex. Linear in the source (bounded by MAX_DRIVER_SOURCE_CHARS). */
export function driverCodeHash(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}
