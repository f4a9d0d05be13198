// The one spelling of an external device's host name that the host judges and dials. The
// same address has many spellings (2130706433, 127.1, 0x7f.1, 0177.0.0.1, ::ffff:127.0.0.1,
// upper case, a trailing dot, Unicode or punycode): a policy that blocks one must see the
// spelling it would block, and the socket must go where the policy looked.
import { isIP } from 'node:net';
import { domainToUnicode } from 'node:url';

/** A DNS name (letters, digits, '-', '_', dots) or an IP address: nothing a URL could read as more. */
const BARE_NAME = /^[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?$/;
/** What a host name may contain before parsing: no port, path, query, user or other URL part. */
const URL_PARTS = /[/\\?#@:\s%[\]]/;

/** `::ffff:7f00:1` (IPv4-mapped IPv6, as the URL parser writes it) → 127.0.0.1: the socket reaches the IPv4 address. */
function unmapped(ipv6: string): string {
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ipv6);
  if (!match) return ipv6;
  const high = parseInt(match[1]!, 16);
  const low = parseInt(match[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The canonical form of a host name or IP given to D.createExternalDevice, or null when it is
 * none: IPv4 in dotted decimal, IPv6 compressed and lower-case without brackets (IPv4-mapped as
 * IPv4), names lower-case, Unicode names as punycode, without a trailing dot.
 */
export function canonicalHost(input: string): string | null {
  if (input.length === 0 || input.length > 255) return null;
  const bracketed = input.startsWith('[') && input.endsWith(']');
  const bare = bracketed ? input.slice(1, -1) : input;
  if (isIP(bare) === 6) {
    let parsed: string;
    try {
      parsed = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    } catch {
      return null;
    }
    return unmapped(parsed);
  }
  if (bracketed || URL_PARTS.test(input)) return null;
  let hostname: string;
  try {
    // The WHATWG host parser: IPv4 in any of its forms, IDNA (ToASCII, which refuses xn--a), case.
    hostname = new URL(`http://${input}/`).hostname;
  } catch {
    return null;
  }
  if (hostname.endsWith('.')) hostname = hostname.slice(0, -1);
  if (hostname.startsWith('[')) return null;
  if (isIP(hostname) === 4) return hostname;
  // Names only from here: a label may not be empty (a..b), and a name of digits and dots
  // that the parser did not read as IPv4 (1.2.3.4.5) is refused, as is anything the parser kept.
  if (!BARE_NAME.test(hostname) || hostname.includes('..') || /^[0-9.]+$/.test(hostname)) return null;
  // A punycode label must decode to Unicode. Node 20 and 22's parsers refuse one that does not
  // (xn--a); Node 24's keeps it as given, so check here and refuse it on every line alike.
  if (hostname.split('.').some((label) => label.startsWith('xn--') && !/[^\x00-\x7f]/.test(domainToUnicode(label)))) return null;
  return hostname;
}
