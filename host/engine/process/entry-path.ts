// Where the sandbox process's entry module is (from dist/ or, running from source, the built copy).
import path from 'node:path';
import { builtScriptPath } from '../../package-path.js';

export function sandboxEntryPath(): string {
  return builtScriptPath(new URL('./child.js', import.meta.url), path.join('dist', 'host', 'engine', 'process', 'child.js'));
}
