// Reads a .env file, as users of the official emulator keep their device address and
// credentials: NAME=value lines, and NAME: value too (the emulator's README writes them so).
// Values in the real environment win over the file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface EnvFile {
  values: Record<string, string>;
  /** Lines that are neither NAME=value, NAME: value, a comment nor blank: ignored, said. */
  problems: Array<{ line: number; message: string }>;
}

export function parseEnvFile(text: string): EnvFile {
  const values: Record<string, string> = {};
  const problems: EnvFile['problems'] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][\w.]*)\s*[=:]\s*(.*)$/.exec(line);
    if (!match) {
      // Only the name is quoted back: the rest of a broken line may well be a password.
      const name = /^(?:export\s+)?([A-Za-z_][\w.]*)/.exec(line)?.[1];
      problems.push({ line: index + 1, message: `${name ? `"${name} …" ` : ''}is not NAME=value (or NAME: value); the line is ignored` });
      return;
    }
    let value = match[2]!.trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    values[match[1]!] = value;
  });
  return { values, problems };
}

/** The process environment over the working directory's .env (if there is one); `warn` hears each line not understood. */
export function loadEnvironment(cwd: string, env: NodeJS.ProcessEnv, warn: (message: string) => void = () => undefined): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  if (!existsSync(file)) return { ...env };
  const { values, problems } = parseEnvFile(readFileSync(file, 'utf8'));
  for (const problem of problems) warn(`${file}:${problem.line}: ${problem.message}`);
  return { ...values, ...env };
}
