// Telnet option negotiation (RFC 854 / RFC 1143), the client side the platform has: every
// option the server asks us to perform (DO) is refused (WONT), every option it offers to
// perform (WILL) is accepted (DO); DONT / WONT need no answer (we never enabled anything).
// The parser keeps its state across chunks, so a command split by TCP is still read whole.

export const IAC = 255;
const DONT = 254;
const DO = 253;
const WONT = 252;
const WILL = 251;
const SB = 250;
const SE = 240;

type State = 'data' | 'iac' | 'option' | 'sub' | 'subIac';

export class Negotiator {
  #state: State = 'data';
  #verb = 0;

  /**
   * Reads one received chunk: returns the text bytes (commands taken out, IAC IAC as one 255)
   * for prompt matching, and the bytes to answer with (empty when nothing to say).
   */
  read(chunk: Buffer): { text: Buffer; reply: Buffer } {
    const text: number[] = [];
    const reply: number[] = [];
    for (const byte of chunk) {
      switch (this.#state) {
        case 'data':
          if (byte === IAC) this.#state = 'iac';
          else text.push(byte);
          break;
        case 'iac':
          if (byte === IAC) {
            text.push(IAC);
            this.#state = 'data';
          } else if (byte === DO || byte === DONT || byte === WILL || byte === WONT) {
            this.#verb = byte;
            this.#state = 'option';
          } else if (byte === SB) {
            this.#state = 'sub';
          } else {
            this.#state = 'data'; // NOP, GA, AYT…: a two-byte command, nothing to answer
          }
          break;
        case 'option':
          if (this.#verb === DO) reply.push(IAC, WONT, byte);
          else if (this.#verb === WILL) reply.push(IAC, DO, byte);
          this.#state = 'data';
          break;
        case 'sub': // a subnegotiation we never asked for: skipped up to IAC SE
          if (byte === IAC) this.#state = 'subIac';
          break;
        case 'subIac':
          this.#state = byte === SE ? 'data' : 'sub';
          break;
      }
    }
    return { text: Buffer.from(text), reply: Buffer.from(reply) };
  }
}
