// Checks made on driver source before it runs: the things the sandbox must refuse
// with a specific error type rather than a generic failure.
import { lineAndColumn, segments } from './scan.js';

export interface SourceProblem {
  errorType: 'IMPORT_NOT_ALLOWED';
  message: string;
}

/** `import x from …`, `import(…)` and `import.meta` are refused: a driver gets everything from D. */
export function findImport(source: string, filename: string): SourceProblem | null {
  // This runs before every run: most drivers never spell "import", so skip the lexing then.
  if (!source.includes('import')) return null;
  for (const segment of segments(source)) {
    if (segment.kind !== 'code') continue;
    // `import` is a reserved word: outside a property access (`x.import`) or key (`{ import: 1 }`)
    // it can only be an import statement, import() or import.meta.
    const match = /(^|[^.\w$])import(?![\w$])(?!\s*:)\s*(\(|\.\s*meta)?/.exec(segment.text);
    if (!match) continue;
    const at = lineAndColumn(source, segment.offset + match.index + match[1].length);
    const what = match[2] === '(' ? 'import()' : match[2] ? 'import.meta' : 'an import statement';
    return {
      errorType: 'IMPORT_NOT_ALLOWED',
      message: `${what} at ${filename}:${at.line}:${at.column} is not allowed in a driver: everything a driver may use is on D`,
    };
  }
  return null;
}
