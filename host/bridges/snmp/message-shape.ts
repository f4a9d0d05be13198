// The shape of an SNMP answer, checked before net-snmp reads it. net-snmp's BER reader is
// lenient: a datagram cut short, a length that claims more than is there or bytes of the wrong
// kind where an OID belongs can come out as a "successful" answer holding garbage, or as no
// answer at all. This checks, in one pass over the bytes and without recursion, that each
// length fits its container exactly and that a v1 / v2c message has the fields RFC 1157 /
// RFC 3416 give it; for v3 (whose PDU may be encrypted) only the outer frame. What it returns
// says what was wrong, for the driver's error.

/** Definite lengths of at most 4 bytes: an SNMP datagram is below 64 KB. */
const MAX_LENGTH_BYTES = 4;

interface Tlv {
  tag: number;
  /** Where the content starts and ends (exclusive). */
  start: number;
  end: number;
}

class Shape extends Error {}

/** The TLV at `at`, within `limit`; `expected`: the one tag it may have. */
function tlvAt(bytes: Buffer, at: number, limit: number, what: string, expected?: number): Tlv {
  if (at + 2 > limit) throw new Shape(`the answer ends where ${what} should be`);
  const tag = bytes[at]!;
  if (expected !== undefined && tag !== expected) throw new Shape(`${what} has tag 0x${tag.toString(16)} where 0x${expected.toString(16)} belongs`);
  if ((tag & 0x1f) === 0x1f) throw new Shape(`${what} has a multi-byte tag, which SNMP never uses`);
  let length = bytes[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0) throw new Shape(`${what} has an indefinite length, which SNMP does not allow`);
    if (n > MAX_LENGTH_BYTES) throw new Shape(`${what}'s length takes ${n} bytes`);
    if (start + n > limit) throw new Shape(`the answer ends inside ${what}'s length`);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + bytes[start + i]!;
    start += n;
  }
  if (start + length > limit) throw new Shape(`${what} claims ${length} bytes but ${limit - start} are left`);
  return { tag, start, end: start + length };
}

function integer(bytes: Buffer, at: number, limit: number, what: string): Tlv {
  const tlv = tlvAt(bytes, at, limit, what, 0x02);
  const size = tlv.end - tlv.start;
  if (size < 1 || size > 5) throw new Shape(`${what} is an INTEGER of ${size} bytes (1 to 5 fit 32 bits)`);
  return tlv;
}

function oid(bytes: Buffer, at: number, limit: number, what: string): Tlv {
  const tlv = tlvAt(bytes, at, limit, what, 0x06);
  if (tlv.end === tlv.start) throw new Shape(`${what} is an empty OID`);
  if (bytes[tlv.end - 1]! & 0x80) throw new Shape(`${what} is an OID whose last arc is cut off`);
  return tlv;
}

/** What is wrong with the answer's shape, or null when it is sound. */
export function checkMessageShape(bytes: Buffer): string | null {
  try {
    const message = tlvAt(bytes, 0, bytes.length, 'the message', 0x30);
    if (message.end !== bytes.length) throw new Shape(`${bytes.length - message.end} bytes follow the message`);
    const version = integer(bytes, message.start, message.end, 'the version');
    if (bytes[version.start] === 3 && version.end - version.start === 1) return null; // v3: net-snmp reads the rest under guard
    const community = tlvAt(bytes, version.end, message.end, 'the community', 0x04);
    const pdu = tlvAt(bytes, community.end, message.end, 'the PDU');
    if (pdu.tag < 0xa0 || pdu.tag > 0xa8) throw new Shape(`the PDU has tag 0x${pdu.tag.toString(16)}, which is no SNMP PDU`);
    if (pdu.end !== message.end) throw new Shape('bytes follow the PDU');
    if (pdu.tag === 0xa4) return null; // a v1 Trap: another layout, and net-snmp refuses it as an answer
    let at = integer(bytes, pdu.start, pdu.end, 'the request id').end;
    at = integer(bytes, at, pdu.end, 'the error status').end;
    at = integer(bytes, at, pdu.end, 'the error index').end;
    const list = tlvAt(bytes, at, pdu.end, 'the varbind list', 0x30);
    if (list.end !== pdu.end) throw new Shape('bytes follow the varbind list');
    for (let n = 1, next = list.start; next < list.end; n++) {
      const varbind = tlvAt(bytes, next, list.end, `varbind ${n}`, 0x30);
      const name = oid(bytes, varbind.start, varbind.end, `varbind ${n}'s OID`);
      const value = tlvAt(bytes, name.end, varbind.end, `varbind ${n}'s value`);
      if (value.tag & 0x20) throw new Shape(`varbind ${n}'s value is constructed (tag 0x${value.tag.toString(16)})`);
      if (value.end !== varbind.end) throw new Shape(`bytes follow varbind ${n}'s value`);
      next = varbind.end;
    }
    return null;
  } catch (error) {
    if (error instanceof Shape) return error.message;
    throw error;
  }
}
