// Type-checks drivers the way an editor does: a real project folder in a temp dir with driverbox
// "installed" (the files `npm pack` would ship, copied into node_modules/driverbox), a
// jsconfig.json, and the TypeScript compiler API run over it.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll } from 'vitest';
import { driverJsconfigText } from '../../host/driver/jsconfig.js';

const repoRoot = join(import.meta.dirname, '..', '..');

/** The paths `npm pack` would put in the package (no scripts run). */
export function packedFiles(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [pack] = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
  return pack!.files.map((f) => f.path);
}

let shipped: string[] | undefined;

export interface DriverProject {
  dir: string;
  /** Writes (or replaces) a file, relative to the project. */
  write(path: string, text: string): void;
}

/**
 * A project folder that depends on driverbox, with the package's declarations in
 * node_modules/driverbox and, unless `jsconfig` is null, the jsconfig `driverbox init` writes.
 */
export function createDriverProject(files: Record<string, string>, jsconfig: string | null = driverJsconfigText()): DriverProject {
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', JSON.stringify({ name: 'my-drivers', private: true, type: 'module', dependencies: { driverbox: '*' } }, null, 2));
  shipped ??= packedFiles();
  // What an install brings that the editor reads: package.json (for `exports`) and types/.
  for (const path of shipped.filter((p) => p === 'package.json' || p.startsWith('types/'))) {
    const target = join(dir, 'node_modules', 'driverbox', path);
    mkdirSync(dirname(target), { recursive: true });
    cpSync(join(repoRoot, path), target);
  }
  if (jsconfig !== null) write('jsconfig.json', jsconfig);
  for (const [path, text] of Object.entries(files)) write(path, text);
  return { dir, write };
}

export interface Problem {
  /** File relative to the project ('' for global problems). */
  file: string;
  line: number;
  code: number;
  message: string;
}

function problemsOf(program: ts.Program, dir: string): Problem[] {
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file ? relative(dir, d.file.fileName) : '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    code: d.code,
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

/** Builds the program a jsconfig describes (as an editor's language service does). */
export function programOf(project: DriverProject, configName = 'jsconfig.json'): ts.Program {
  const configPath = join(project.dir, configName);
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(`${configName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    },
  });
  if (!parsed) throw new Error(`${configName} could not be read`);
  if (parsed.errors.length) throw new Error(`${configName}: ${parsed.errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('; ')}`);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/** Every diagnostic of the project (its drivers and the declarations they load). */
export function typecheck(project: DriverProject, configName = 'jsconfig.json'): Problem[] {
  return problemsOf(programOf(project, configName), project.dir);
}

/** Diagnostics for some files checked with explicit options (no jsconfig), e.g. a `/// <reference types>` driver. */
export function typecheckFiles(project: DriverProject, files: string[], options: ts.CompilerOptions): Problem[] {
  const program = ts.createProgram({ rootNames: files.map((f) => join(project.dir, f)), options });
  return problemsOf(program, project.dir);
}
