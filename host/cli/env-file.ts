// Reads KEY=VALUE lines of a .env file, as users of the official emulator keep their
// device address and credentials. Values in the real environment win over the file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][\w.]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2].trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[match[1]] = value;
  }
  return out;
}

/** The process environment over the working directory's .env (if there is one). */
export function loadEnvironment(cwd: string, env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const file = path.join(cwd, '.env');
  const fromFile = existsSync(file) ? parseEnvFile(readFileSync(file, 'utf8')) : {};
  return { ...fromFile, ...env };
}
