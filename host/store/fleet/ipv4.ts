// Dotted-decimal IPv4 addresses as 32-bit numbers: what the networking settings validate
// (private ranges, start <= end) and what topology groups devices by.

/** "192.168.1.7" → 3232235783; null for anything but four decimal octets 0–255 (no leading zeros). */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The private-use blocks of the IANA IPv4 special-purpose registry (RFC 1918). */
const PRIVATE_BLOCKS: ReadonlyArray<[string, number]> = [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
];

export const PRIVATE_RANGES_TEXT = PRIVATE_BLOCKS.map(([a, p]) => `${a}/${p}`).join(', ');

/** The network address of value under a prefix length. */
export function networkOf(value: number, prefix: number): number {
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) * size;
}

export function isPrivateIpv4(value: number): boolean {
  return PRIVATE_BLOCKS.some(([address, prefix]) => networkOf(value, prefix) === parseIpv4(address));
}

/** 255.255.255.0 → 24; null when the mask's ones are not contiguous. */
export function prefixOfMask(mask: string): number | null {
  const value = parseIpv4(mask);
  if (value === null) return null;
  for (let prefix = 0; prefix <= 32; prefix++) if (value === 2 ** 32 - 2 ** (32 - prefix)) return prefix;
  return null;
}
