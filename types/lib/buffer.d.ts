// The Buffer a driver receives (D._unsafe.buffer, D.crypto results, `encoding: null` bodies):
// the `buffer` package's Buffer, a Uint8Array with Node's Buffer methods. Declared in the
// Driverbox namespace so it never clashes with Node's own global Buffer.

declare namespace Driverbox {
  /**
   * What `Buffer.slice` returns: a Buffer that is also whatever this TypeScript version's Uint8Array.slice returns
   * (so Buffer stays a valid Uint8Array whether or not Uint8Array is generic).
   */
  type BufferSlice = ReturnType<Uint8Array['slice']> & Buffer;

  /** Bytes, with Node's Buffer methods. */
  interface Buffer extends Uint8Array {
    /** The bytes as text in `encoding` (default utf8), from `start` to `end`. */
    toString(encoding?: Encoding, start?: number, end?: number): string;
    /** Same as `toString()`. */
    toLocaleString(): string;
    /** `{ type: 'Buffer', data: [...] }`, as JSON.stringify writes it. */
    toJSON(): { type: 'Buffer'; data: number[] };
    /** A short text form, e.g. `<Buffer 61 62>`. */
    inspect(): string;
    /** True when both hold the same bytes. */
    equals(other: Uint8Array): boolean;
    /** -1, 0 or 1: how this (or its slice) sorts against `target` (or its slice). */
    compare(target: Uint8Array, targetStart?: number, targetEnd?: number, sourceStart?: number, sourceEnd?: number): number;
    /** True when `value` occurs from `byteOffset` on. */
    includes(value: string | number | Uint8Array, byteOffset?: number, encoding?: Encoding): boolean;
    /** Where `value` first occurs from `byteOffset` on, or -1. */
    indexOf(value: string | number | Uint8Array, byteOffset?: number, encoding?: Encoding): number;
    /** Where `value` last occurs up to `byteOffset`, or -1. */
    lastIndexOf(value: string | number | Uint8Array, byteOffset?: number, encoding?: Encoding): number;
    /** Writes `text` at `offset`; returns the number of bytes written. */
    write(text: string, encoding?: Encoding): number;
    write(text: string, offset: number, encoding?: Encoding): number;
    write(text: string, offset: number, length: number, encoding?: Encoding): number;
    /** A view of bytes `start` to `end` (shares memory). */
    slice(start?: number, end?: number): BufferSlice;
    /** Copies bytes into `target`; returns how many. */
    copy(target: Uint8Array, targetStart?: number, sourceStart?: number, sourceEnd?: number): number;
    /** Fills bytes `offset` to `end` with `value`. */
    fill(value: string | number | Uint8Array, offset?: number, end?: number, encoding?: Encoding): this;
    /** Swaps byte order of each 16-bit unit in place. */
    swap16(): Buffer;
    /** Swaps byte order of each 32-bit unit in place. */
    swap32(): Buffer;
    /** Swaps byte order of each 64-bit unit in place. */
    swap64(): Buffer;
    /** @deprecated the underlying ArrayBuffer: use `buffer`. */
    readonly parent: ArrayBufferLike;
    /** @deprecated the offset in the underlying ArrayBuffer: use `byteOffset`. */
    readonly offset: number;

    /** Unsigned integer of `byteLength` (1–6) bytes, little-endian. */
    readUIntLE(offset: number, byteLength: number): number;
    /** Alias of `readUIntLE`. */
    readUintLE(offset: number, byteLength: number): number;
    /** Unsigned integer of `byteLength` (1–6) bytes, big-endian. */
    readUIntBE(offset: number, byteLength: number): number;
    /** Alias of `readUIntBE`. */
    readUintBE(offset: number, byteLength: number): number;
    /** Unsigned 8-bit integer. */
    readUInt8(offset?: number): number;
    /** Alias of `readUInt8`. */
    readUint8(offset?: number): number;
    /** Unsigned 16-bit integer, little-endian. */
    readUInt16LE(offset?: number): number;
    /** Alias of `readUInt16LE`. */
    readUint16LE(offset?: number): number;
    /** Unsigned 16-bit integer, big-endian. */
    readUInt16BE(offset?: number): number;
    /** Alias of `readUInt16BE`. */
    readUint16BE(offset?: number): number;
    /** Unsigned 32-bit integer, little-endian. */
    readUInt32LE(offset?: number): number;
    /** Alias of `readUInt32LE`. */
    readUint32LE(offset?: number): number;
    /** Unsigned 32-bit integer, big-endian. */
    readUInt32BE(offset?: number): number;
    /** Alias of `readUInt32BE`. */
    readUint32BE(offset?: number): number;
    /** Unsigned 64-bit integer, little-endian. */
    readBigUInt64LE(offset?: number): bigint;
    /** Unsigned 64-bit integer, big-endian. */
    readBigUInt64BE(offset?: number): bigint;
    /** Signed integer of `byteLength` (1–6) bytes, little-endian. */
    readIntLE(offset: number, byteLength: number): number;
    /** Signed integer of `byteLength` (1–6) bytes, big-endian. */
    readIntBE(offset: number, byteLength: number): number;
    /** Signed 8-bit integer. */
    readInt8(offset?: number): number;
    /** Signed 16-bit integer, little-endian. */
    readInt16LE(offset?: number): number;
    /** Signed 16-bit integer, big-endian. */
    readInt16BE(offset?: number): number;
    /** Signed 32-bit integer, little-endian. */
    readInt32LE(offset?: number): number;
    /** Signed 32-bit integer, big-endian. */
    readInt32BE(offset?: number): number;
    /** Signed 64-bit integer, little-endian. */
    readBigInt64LE(offset?: number): bigint;
    /** Signed 64-bit integer, big-endian. */
    readBigInt64BE(offset?: number): bigint;
    /** 32-bit float, little-endian. */
    readFloatLE(offset?: number): number;
    /** 32-bit float, big-endian. */
    readFloatBE(offset?: number): number;
    /** 64-bit float, little-endian. */
    readDoubleLE(offset?: number): number;
    /** 64-bit float, big-endian. */
    readDoubleBE(offset?: number): number;

    /** Writes an unsigned integer of `byteLength` bytes, little-endian; returns the offset after it. */
    writeUIntLE(value: number, offset: number, byteLength: number): number;
    /** Alias of `writeUIntLE`. */
    writeUintLE(value: number, offset: number, byteLength: number): number;
    /** Writes an unsigned integer of `byteLength` bytes, big-endian; returns the offset after it. */
    writeUIntBE(value: number, offset: number, byteLength: number): number;
    /** Alias of `writeUIntBE`. */
    writeUintBE(value: number, offset: number, byteLength: number): number;
    /** Writes an unsigned 8-bit integer; returns the offset after it. */
    writeUInt8(value: number, offset?: number): number;
    /** Alias of `writeUInt8`. */
    writeUint8(value: number, offset?: number): number;
    /** Writes an unsigned 16-bit integer, little-endian. */
    writeUInt16LE(value: number, offset?: number): number;
    /** Alias of `writeUInt16LE`. */
    writeUint16LE(value: number, offset?: number): number;
    /** Writes an unsigned 16-bit integer, big-endian. */
    writeUInt16BE(value: number, offset?: number): number;
    /** Alias of `writeUInt16BE`. */
    writeUint16BE(value: number, offset?: number): number;
    /** Writes an unsigned 32-bit integer, little-endian. */
    writeUInt32LE(value: number, offset?: number): number;
    /** Alias of `writeUInt32LE`. */
    writeUint32LE(value: number, offset?: number): number;
    /** Writes an unsigned 32-bit integer, big-endian. */
    writeUInt32BE(value: number, offset?: number): number;
    /** Alias of `writeUInt32BE`. */
    writeUint32BE(value: number, offset?: number): number;
    /** Writes an unsigned 64-bit integer, little-endian. */
    writeBigUInt64LE(value: bigint, offset?: number): number;
    /** Writes an unsigned 64-bit integer, big-endian. */
    writeBigUInt64BE(value: bigint, offset?: number): number;
    /** Writes a signed integer of `byteLength` bytes, little-endian. */
    writeIntLE(value: number, offset: number, byteLength: number): number;
    /** Writes a signed integer of `byteLength` bytes, big-endian. */
    writeIntBE(value: number, offset: number, byteLength: number): number;
    /** Writes a signed 8-bit integer. */
    writeInt8(value: number, offset?: number): number;
    /** Writes a signed 16-bit integer, little-endian. */
    writeInt16LE(value: number, offset?: number): number;
    /** Writes a signed 16-bit integer, big-endian. */
    writeInt16BE(value: number, offset?: number): number;
    /** Writes a signed 32-bit integer, little-endian. */
    writeInt32LE(value: number, offset?: number): number;
    /** Writes a signed 32-bit integer, big-endian. */
    writeInt32BE(value: number, offset?: number): number;
    /** Writes a signed 64-bit integer, little-endian. */
    writeBigInt64LE(value: bigint, offset?: number): number;
    /** Writes a signed 64-bit integer, big-endian. */
    writeBigInt64BE(value: bigint, offset?: number): number;
    /** Writes a 32-bit float, little-endian. */
    writeFloatLE(value: number, offset?: number): number;
    /** Writes a 32-bit float, big-endian. */
    writeFloatBE(value: number, offset?: number): number;
    /** Writes a 64-bit float, little-endian. */
    writeDoubleLE(value: number, offset?: number): number;
    /** Writes a 64-bit float, big-endian. */
    writeDoubleBE(value: number, offset?: number): number;
  }
}
