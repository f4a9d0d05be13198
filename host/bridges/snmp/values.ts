// What a varbind becomes in the driver's output, as the platform gives it: OctetString as
// text; Integer, Counter32, Gauge32, TimeTicks, IpAddress and OID as strings; Counter64 and
// Opaque (bytes) as numbers; a missing OID as { error: "NoSuchObject: <oid>" } under its key.
import snmp from 'net-snmp';

export type OutputValue = string | number | boolean | null | { error: string };

export function outputValue(varbind: snmp.Varbind): OutputValue {
  if (snmp.isVarbindError(varbind)) return { error: snmp.varbindError(varbind) };
  const value: unknown = varbind.value;
  if (varbind.type === snmp.ObjectType.OctetString) return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  if (Buffer.isBuffer(value)) return bytesNumber(value);
  // Null carries no value (the emulator crashes on it): null, as JSON would say.
  if (value === null || value === undefined) return null;
  return String(value);
}

/** Big-endian bytes as a number, as the platform reads Counter64 and Opaque (past 2^53 it rounds). */
function bytesNumber(bytes: Buffer): number {
  let n = 0;
  for (const byte of bytes) n = n * 256 + byte;
  return n;
}

/** The output as text for the transcript and the output bound. */
export function outputText(output: Record<string, OutputValue>): string {
  return JSON.stringify(output);
}
