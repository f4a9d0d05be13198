// Finds a driver's literal prompt (`prompt`, `error_prompt`) in device text as it streams in:
// the same answer as `everything.includes(needle)` after every packet, at O(1) amortized per
// character (Knuth-Morris-Pratt), instead of searching the whole output again per packet.

export class LiteralSearch {
  readonly needle: string;
  readonly #fail: Int32Array;
  #matched = 0;
  #found = false;

  constructor(needle: string) {
    this.needle = needle;
    // fail[i]: length of the longest proper border of needle[0..i].
    this.#fail = new Int32Array(needle.length);
    for (let i = 1, k = 0; i < needle.length; i++) {
      while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = this.#fail[k - 1]!;
      if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
      this.#fail[i] = k;
    }
  }

  /** Whether the needle has shown in what was fed since the last reset. */
  get found(): boolean {
    return this.#found;
  }

  /** Feeds more text; true once the needle has shown (in this text or before). */
  feed(text: string): boolean {
    if (this.#found) return true;
    const needle = this.needle;
    if (needle.length === 0) return (this.#found = true);
    let k = this.#matched;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      while (k > 0 && c !== needle.charCodeAt(k)) k = this.#fail[k - 1]!;
      if (c === needle.charCodeAt(k)) k++;
      if (k === needle.length) return (this.#found = true);
    }
    this.#matched = k;
    return false;
  }

  reset(): void {
    this.#matched = 0;
    this.#found = false;
  }
}
