// Device text kept as pieces and joined once. `+=` on a string per packet keeps a node per
// packet and re-copies on every read of it; a per-packet array keeps a string object per
// packet. Here the small pieces are joined in blocks of 256, so every character is copied at
// most twice before the final join and the host holds about one block object per 256 packets.

const BLOCK = 256;

export class TextCollector {
  #blocks: string[] = [];
  #small: string[] = [];
  #length = 0;
  #joined: string | null = '';

  get length(): number {
    return this.#length;
  }

  push(text: string): void {
    if (text.length === 0) return;
    this.#small.push(text);
    this.#length += text.length;
    this.#joined = null;
    if (this.#small.length >= BLOCK) {
      this.#blocks.push(this.#small.join(''));
      this.#small = [];
    }
  }

  /** Everything pushed, as one string (kept until the next push). */
  text(): string {
    if (this.#joined === null) {
      this.#blocks.push(this.#small.join(''));
      this.#small = [];
      const whole = this.#blocks.join('');
      this.#blocks = [whole];
      this.#joined = whole;
    }
    return this.#joined;
  }

  clear(): void {
    this.#blocks = [];
    this.#small = [];
    this.#length = 0;
    this.#joined = '';
  }
}
