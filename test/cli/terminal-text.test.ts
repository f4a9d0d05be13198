// host/terminal-text.ts, the one sanitizer between device/driver text and the operator's
// terminal: which characters it escapes, what it keeps, and that the output boundary leaves a JSON
// document exact. (test/cli/terminal-escapes.test.ts runs the real CLI with hostile drivers.)
import { describe, expect, it } from 'vitest';
import { terminalOutput, terminalText } from '../../host/terminal-text.js';

const code = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;
const BIDI = [0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];

describe('terminalText', () => {
  it('escapes every C0 control but tab and line feed, DEL, every C1 control and the bidi controls, as \\uXXXX', () => {
    for (let c = 0; c <= 0x9f; c++) {
      const ch = String.fromCharCode(c);
      const unsafe = c < 0x20 || c >= 0x7f;
      const expected = c === 0x09 || c === 0x0a || !unsafe ? ch : code(c);
      expect(terminalText(`a${ch}b`), `U+${c.toString(16)}`).toBe(`a${expected}b`);
    }
    for (const c of BIDI) expect(terminalText(String.fromCharCode(c))).toBe(code(c));
    // Printable text of other scripts stays as it is.
    expect(terminalText('ü ß 温度 ✔ → …')).toBe('ü ß 温度 ✔ → …');
  });

  it('on one line, tab and line feed are escaped too', () => {
    expect(terminalText('a\tb\nc\rd', { oneLine: true })).toBe('a\\u0009b\\u000ac\\u000dd');
  });

  it('no sequence can start: OSC 52, the window title, clear screen, hidden text, a CR overwrite, 8-bit CSI', () => {
    const hostile = '\u001b]52;c;SGVsbG8=\u0007\u001b]0;title\u001b\\\u001b[2J\u001b[8mhidden\rFAKE\u009b31m';
    expect(terminalText(hostile)).toBe('\\u001b]52;c;SGVsbG8=\\u0007\\u001b]0;title\\u001b\\\\u001b[2J\\u001b[8mhidden\\u000dFAKE\\u009b31m');
  });
});

describe('terminalOutput (every line the CLI writes)', () => {
  it("keeps the CLI's own style sequences only when the output is styled, and nothing else that starts with ESC", () => {
    const ours = '\u001b[1mtitle\u001b[22m \u001b[31mred\u001b[39m \u001b[2mdim\u001b[22m \u001b[32mok\u001b[39m \u001b[33m!\u001b[39m';
    expect(terminalOutput(ours, true)).toBe(ours);
    expect(terminalOutput(ours, false)).not.toContain('\u001b');
    expect(terminalOutput('\u001b[8m\u001b[2J\u001b]0;t\u0007\u001b[31;1m', true)).toBe('\\u001b[8m\\u001b[2J\\u001b]0;t\\u0007\\u001b[31;1m');
    expect(terminalOutput('line 1\n\tline 2')).toBe('line 1\n\tline 2');
  });

  it('leaves a JSON document valid and its values exact (JSON.stringify leaves C1, DEL and bidi raw)', () => {
    let all = '';
    for (let c = 0; c < 0x2100; c++) if (c < 0xd800) all += String.fromCharCode(c);
    for (const c of BIDI) all += String.fromCharCode(c);
    const doc = { value: all, nested: [{ key: `\\${all}\\` }] };
    const raw = JSON.stringify(doc);
    expect(/[\u007f-\u009f\u202e]/.test(raw)).toBe(true);
    const out = terminalOutput(raw);
    expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/.test(out)).toBe(false);
    expect(JSON.parse(out)).toEqual(doc);
  });
});
