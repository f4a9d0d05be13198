// A small lexical pass over driver source: separates code from comments and string
// literals, so that checks (import use, entry points) never match inside a string or comment.

export interface Segment {
  kind: 'code' | 'comment' | 'string';
  text: string;
  offset: number;
}

const regexPrefix = /[(,=:[!&|?{};+\-*%<>~^]$/;
const regexKeywords = /\b(return|typeof|case|do|else|in|of|void|yield|await|delete|throw|new)$/;

export function segments(source: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  let codeStart = 0;
  const pushCode = (end: number) => {
    if (end > codeStart) out.push({ kind: 'code', text: source.slice(codeStart, end), offset: codeStart });
  };
  const lastCode = () => source.slice(Math.max(codeStart, i - 12), i).trimEnd();
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    let end = -1;
    let kind: Segment['kind'] = 'string';
    if (c === '/' && next === '/') {
      kind = 'comment';
      end = source.indexOf('\n', i);
      if (end < 0) end = source.length;
    } else if (c === '/' && next === '*') {
      kind = 'comment';
      end = source.indexOf('*/', i + 2);
      end = end < 0 ? source.length : end + 2;
    } else if (c === '"' || c === "'" || c === '`') {
      end = skipQuoted(source, i, c);
    } else if (c === '/') {
      const before = lastCode();
      if (before === '' || regexPrefix.test(before) || regexKeywords.test(before)) end = skipRegex(source, i);
    }
    if (end < 0) {
      i++;
      continue;
    }
    pushCode(i);
    out.push({ kind, text: source.slice(i, end), offset: i });
    i = end;
    codeStart = end;
  }
  pushCode(source.length);
  return out;
}

function skipQuoted(source: string, start: number, quote: string): number {
  let i = start + 1;
  let depth = 0; // ${ } nesting inside template literals
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') i += 2;
    else if (quote === '`' && c === '$' && source[i + 1] === '{') {
      depth++;
      i += 2;
    } else if (quote === '`' && depth > 0 && c === '}') {
      depth--;
      i++;
    } else if (c === quote && depth === 0) return i + 1;
    else if (c === '\n' && quote !== '`') return i; // unterminated: the compiler will say so
    else i++;
  }
  return source.length;
}

function skipRegex(source: string, start: number): number {
  let i = start + 1;
  let inClass = false;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') i += 2;
    else if (c === '[') (inClass = true), i++;
    else if (c === ']') (inClass = false), i++;
    else if (c === '/' && !inClass) {
      i++;
      while (/[a-z]/i.test(source[i] ?? '')) i++;
      return i;
    } else if (c === '\n') return i;
    else i++;
  }
  return source.length;
}

export function lineAndColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
