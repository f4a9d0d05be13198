// Bytes a device sends, kept compactly and joined once. A Buffer per packet would cost ~100
// bytes of host memory per 1-byte packet (a device sending 4 MiB one byte at a time: ~400 MB);
// one growing buffer costs at most twice the bytes, and every byte is copied a bounded number
// of times (doubling).

export class ByteCollector {
  #buffer: Buffer = Buffer.alloc(0);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  append(chunk: Uint8Array): void {
    const needed = this.#length + chunk.length;
    if (needed > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2, 256));
      this.#buffer.copy(grown, 0, 0, this.#length);
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#length);
    this.#length = needed;
  }

  /** The bytes so far (a view: valid until the next append). */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }
}
