// Where a JSON text is broken, as line and column, for files people write by hand. JSON.parse
// says "at position N" for some mistakes (Node 20; newer versions add "(line L column C)") and
// nothing for others ("Unexpected token", "Unexpected end"), so the offset is taken from the
// message when it has one and found by a small scanner otherwise.

export interface JsonErrorLocation {
  line: number;
  column: number;
  /** JSON.parse's message without its position or its quote of the text. */
  reason: string;
  /** The broken line, and a caret under the column. */
  frame: string;
}

export function locateJsonError(text: string, error: Error): JsonErrorLocation {
  const position = /at position (\d+)/.exec(error.message);
  const offset = position ? Number(position[1]) : firstErrorOffset(text);
  const before = text.slice(0, Math.min(offset, text.length));
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  const lineText = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '');
  const reason = error.message
    .replace(/\s*in JSON at position \d+.*$/s, '')
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '');
  return { line, column, reason, frame: `  ${lineText}\n  ${' '.repeat(Math.max(0, column - 1))}^` };
}

/** The offset of the first character that makes `text` invalid JSON (text.length when it ends too soon). */
function firstErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new Stop(i);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = () => {
    i++; // the opening quote
    while (i < text.length) {
      const ch = text[i]!;
      if (ch === '"') return void i++;
      if (ch < ' ') fail();
      if (ch === '\\') {
        i++;
        if (text[i] === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (/[0-9a-f]/i.test(text[i + k] ?? '')) continue;
            i += k;
            fail();
          }
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    fail();
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (;;) {
        if (close === '}') {
          space();
          if (text[i] !== '"') fail();
          string();
          space();
          if (text[i] !== ':') fail();
          i++;
        }
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) return void i++;
        fail();
      }
    }
    if (ch === '"') return string();
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = i;
    if (number.exec(text)) return void (i = number.lastIndex);
    for (const word of ['true', 'false', 'null']) {
      if (ch !== word[0]) continue;
      for (const letter of word) {
        if (text[i] !== letter) fail();
        i++;
      }
      return;
    }
    fail();
  };
  try {
    value();
    space();
    if (i < text.length) fail();
  } catch (error) {
    if (error instanceof Stop) return error.offset;
    return 0; // nested past the stack: rare enough for a hand-written file to point at its start
  }
  return text.length;
}

class Stop {
  constructor(readonly offset: number) {}
}
