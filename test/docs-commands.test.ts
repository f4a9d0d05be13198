// Every driverbox command line in README.md and docs/ must work when pasted: it starts with
// `npx` (a bare `driverbox` is "command not found" unless installed globally), names a command
// that exists, and uses only flags that command's --help lists. scripts/readme-check.mjs then
// runs the README's own flow for real, in a fresh clone (CI).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const COMMANDS = ['run', 'actions', 'demo', 'simulate', 'init', 'serve', 'drivers', 'agent', 'agents', 'help'];
const COMMAND_LINE = new RegExp(`^(?:\\$ )?(npx )?driverbox (${COMMANDS.join('|')})(?=\\s|$)(.*)$`);

interface DocCommand {
  file: string;
  line: number;
  text: string;
  npx: boolean;
  command: string;
  flags: string[];
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? markdownFiles(full) : entry.name.endsWith('.md') ? [full] : [];
  });
}

/** Command lines in shell-like fenced blocks (no language, sh, bash, shell, console), flush left. */
function documentedCommands(file: string): DocCommand[] {
  const found: DocCommand[] = [];
  let fence: string | null = null;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      const opening = raw.match(/^```(\w*)/);
      if (opening) {
        fence = fence === null ? opening[1]! : null;
        return;
      }
      if (fence === null || !['', 'sh', 'bash', 'shell', 'console'].includes(fence)) return;
      const match = raw.replace(/\s+#.*$/, '').match(COMMAND_LINE);
      if (!match) return;
      const rest = match[3]!;
      found.push({
        file: path.relative(root, file),
        line: index + 1,
        text: raw.trim(),
        npx: Boolean(match[1]),
        command: match[2]!,
        flags: [...rest.matchAll(/(?:^|\s|\[)(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!),
      });
    });
  return found;
}

const helpOf = new Map<string, string>();
async function loadHelp(command: string): Promise<void> {
  const args = command === 'help' ? ['--help'] : [command, '--help'];
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, 'bin/driverbox.js'), ...args], { encoding: 'utf8' });
  helpOf.set(command, stdout);
}

const documented = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))].flatMap(documentedCommands);

describe('driverbox command lines in README.md and docs/', () => {
  beforeAll(async () => {
    await Promise.all([...new Set(documented.map((c) => c.command))].map(loadHelp));
  }, 120_000);

  it('finds the command lines of the README and the docs', () => {
    // A guard against a parser that silently finds nothing.
    expect(documented.filter((c) => c.file === 'README.md').length).toBeGreaterThan(8);
    expect(new Set(documented.map((c) => c.command))).toEqual(new Set(['run', 'actions', 'simulate', 'init', 'serve', 'drivers', 'agent', 'agents']));
  });

  it('each starts with npx, so that it works pasted in the repository and in a project that depends on driverbox', () => {
    const bare = documented.filter((c) => !c.npx).map((c) => `${c.file}:${c.line}: ${c.text}`);
    expect(bare).toEqual([]);
  });

  it("each flag is one its command's --help lists", () => {
    const unknown = documented.flatMap((c) =>
      c.flags.filter((flag) => !new RegExp(`(^|[\\s,\\[])${flag}(?![a-z0-9-])`, 'm').test(helpOf.get(c.command)!)).map((flag) => `${c.file}:${c.line}: ${flag} (${c.text})`),
    );
    expect(unknown).toEqual([]);
  });
});
