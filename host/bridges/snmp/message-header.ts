// The head of an SNMP message, read without net-snmp: the version, the PDU's tag and the
// request id (v1 / v2c) or msgID (v3) — what net-snmp files a request under. It reads a few
// tag-length-value headers at the front and nothing else: constant work whatever the datagram.

export interface MessageHeader {
  /** 0 (v1), 1 (v2c), 3 (v3). */
  version: number;
  /** The PDU's tag (0xa2 GetResponse, 0xa8 Report…); null for v3, whose PDU may be encrypted. */
  pduTag: number | null;
  /** The request id (v1 / v2c) or msgID (v3). */
  id: number;
}

/** PDU tags by name, for messages. */
export const PDU_TAGS: Readonly<Record<number, string>> = {
  0xa0: 'GetRequest', 0xa1: 'GetNextRequest', 0xa2: 'GetResponse', 0xa3: 'SetRequest', 0xa4: 'Trap',
  0xa5: 'GetBulkRequest', 0xa6: 'InformRequest', 0xa7: 'SNMPv2-Trap', 0xa8: 'Report',
};

class Cursor {
  constructor(readonly bytes: Buffer, public at = 0) {}

  /** A TLV's tag and content length; the cursor left at its content. Null when it does not fit. */
  head(): { tag: number; length: number } | null {
    if (this.at + 2 > this.bytes.length) return null;
    const tag = this.bytes[this.at++]!;
    let length = this.bytes[this.at++]!;
    if (length & 0x80) {
      const n = length & 0x7f;
      if (n === 0 || n > 4 || this.at + n > this.bytes.length) return null;
      length = 0;
      for (let i = 0; i < n; i++) length = length * 256 + this.bytes[this.at++]!;
    }
    return { tag, length };
  }

  /** An INTEGER of at most 5 content bytes (an unsigned 32-bit id needs 5); null otherwise. */
  integer(): number | null {
    const h = this.head();
    if (!h || h.tag !== 0x02 || h.length < 1 || h.length > 5 || this.at + h.length > this.bytes.length) return null;
    let value = this.bytes[this.at]! & 0x80 ? -1 : 0;
    for (let i = 0; i < h.length; i++) value = value * 256 + this.bytes[this.at++]!;
    return value;
  }

  skip(tag: number): boolean {
    const h = this.head();
    if (!h || h.tag !== tag || this.at + h.length > this.bytes.length) return false;
    this.at += h.length;
    return true;
  }
}

/** The message's head, or null when its first bytes are not an SNMP message's. */
export function readMessageHeader(bytes: Buffer): MessageHeader | null {
  const c = new Cursor(bytes);
  if (c.head()?.tag !== 0x30) return null;
  const version = c.integer();
  if (version === null) return null;
  if (version === 3) {
    if (c.head()?.tag !== 0x30) return null;
    const id = c.integer();
    return id === null ? null : { version, pduTag: null, id };
  }
  if (!c.skip(0x04)) return null; // the community
  const pdu = c.head();
  if (!pdu) return null;
  const id = c.integer();
  return id === null ? null : { version, pduTag: pdu.tag, id };
}
