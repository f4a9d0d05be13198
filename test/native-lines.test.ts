// Native dependencies come in one line per Node (host/platform/native-lines.ts): the line loaded is one
// meant for the running Node, package.json installs exactly the lines the loaders know, and when
// no line loads the error names the Node version and what each line said.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SUPPORTED_NODE_MAJORS, type NativeLine } from '../host/platform/native-lines.js';
import { ISOLATED_VM_LINES, loadIsolatedVm } from '../host/platform/isolated-vm.js';
import { BETTER_SQLITE3_LINES, loadBetterSqlite3 } from '../host/store/db/better-sqlite3.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; optionalDependencies: Record<string, string>; dependencies: Record<string, string> };
const major = Number(process.versions.node.split('.')[0]);
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-native-lines-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A built loader (dist/) copied into a folder of its own, with `modules` (alias → entry file's
 * text) as its node_modules, run by a plain node process: what it gave there.
 */
function loadIn(name: string, modules: Record<string, string>, loader: 'isolated-vm' | 'better-sqlite3' = 'isolated-vm'): { code: string; message: string } {
  const root = path.join(work, name);
  mkdirSync(path.join(root, 'host', 'store', 'db'), { recursive: true });
  mkdirSync(path.join(root, 'host', 'contract'), { recursive: true });
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  for (const file of ['contract/errors.js', 'platform/native-lines.js', 'platform/isolated-vm.js', 'store/db/better-sqlite3.js']) cpSync(path.join('dist/host', file), path.join(root, 'host', file));
  for (const [alias, entry] of Object.entries(modules)) {
    const dir = path.join(root, 'node_modules', alias);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'isolated-vm', version: '0.0.0', main: 'isolated-vm.js' }));
    writeFileSync(path.join(dir, 'isolated-vm.js'), entry);
  }
  writeFileSync(
    path.join(root, 'probe.mjs'),
    `import { loadIsolatedVm } from './host/platform/isolated-vm.js';
    import { loadBetterSqlite3 } from './host/store/db/better-sqlite3.js';
    const load = ${loader === 'isolated-vm' ? 'loadIsolatedVm' : 'loadBetterSqlite3'};
    try { console.log(JSON.stringify({ code: 'LOADED', message: load().alias })); }
    catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`,
  );
  return JSON.parse(execFileSync(process.execPath, [path.join(root, 'probe.mjs')], { encoding: 'utf8' })) as { code: string; message: string };
}

function lineOf(lines: readonly NativeLine[], alias: string): NativeLine {
  const line = lines.find((l) => l.alias === alias);
  if (!line) throw new Error(`${alias} is not one of ${lines.map((l) => l.alias).join(', ')}`);
  return line;
}

describe('native lines', () => {
  it('the isolated-vm loaded is a line meant for the running Node, of that major version, and runs code', () => {
    const loaded = loadIsolatedVm();
    expect(lineOf(ISOLATED_VM_LINES, loaded.alias).nodeMajors).toContain(major);
    expect(loaded.version.split('.')[0]).toBe(loaded.alias.replace('isolated-vm-', ''));
    const isolate = new loaded.ivm.Isolate({ memoryLimit: 16 });
    try {
      expect(isolate.createContextSync().evalSync('6 * 7')).toBe(42);
    } finally {
      isolate.dispose();
    }
  });

  it('the better-sqlite3 loaded is a line meant for the running Node, of that major version, and runs SQL', () => {
    const loaded = loadBetterSqlite3();
    expect(lineOf(BETTER_SQLITE3_LINES, loaded.alias).nodeMajors).toContain(major);
    expect(loaded.version.split('.')[0]).toBe(loaded.alias.replace('better-sqlite3-', ''));
    const db = new loaded.module(':memory:');
    try {
      expect(db.prepare('select 6 * 7 as n').get()).toEqual({ n: 42 });
    } finally {
      db.close();
    }
  });

  it('package.json installs exactly the lines the loaders know, as optional aliases, and engines names the supported majors', () => {
    expect(pkg.dependencies['isolated-vm']).toBeUndefined();
    expect(pkg.dependencies['better-sqlite3']).toBeUndefined();
    const lines = [...ISOLATED_VM_LINES, ...BETTER_SQLITE3_LINES];
    expect(Object.keys(pkg.optionalDependencies).sort()).toEqual(lines.map((l) => l.alias).sort());
    for (const line of lines) {
      const [name, lineMajor] = [line.alias.replace(/-\d+$/, ''), line.alias.replace(/^.*-/, '')];
      expect(pkg.optionalDependencies[line.alias]).toMatch(new RegExp(`^npm:${name}@\\^?${lineMajor}\\.`));
    }
    // Every supported major has a line of each, and engines says exactly those majors.
    for (const m of SUPPORTED_NODE_MAJORS) {
      expect(ISOLATED_VM_LINES.some((l) => l.nodeMajors.includes(m))).toBe(true);
      expect(BETTER_SQLITE3_LINES.some((l) => l.nodeMajors.includes(m))).toBe(true);
    }
    expect(pkg.engines.node.split('||').map((r) => Number(r.trim().replace(/^\^/, '').split('.')[0]))).toEqual([...SUPPORTED_NODE_MAJORS]);
  });

  it('no line installed: ISOLATED_VM_MISSING names the Node version and says each line is not installed', () => {
    const r = loadIn('none', {});
    expect(r.code).toBe('ISOLATED_VM_MISSING');
    expect(r.message).toContain(`no isolated-vm build loads on Node ${process.versions.node}`);
    expect(r.message).toContain('driverbox supports Node 20, 22, 24');
    expect(r.message).toContain('isolated-vm-6: not installed');
    expect(r.message).toContain('isolated-vm-5: not installed');
  });

  it('no better-sqlite3 line installed: SQLITE_MISSING names the Node version and each line', () => {
    const r = loadIn('no-sqlite', {}, 'better-sqlite3');
    expect(r.code).toBe('SQLITE_MISSING');
    expect(r.message).toContain(`no better-sqlite3 build loads on Node ${process.versions.node}`);
    expect(r.message).toContain('better-sqlite3-13: not installed');
    expect(r.message).toContain('better-sqlite3-12: not installed');
  });

  it('a line whose build does not load is passed over for the next; when none loads, its own error is quoted', () => {
    const broken = `throw new Error('The module was compiled against a different Node.js version');`;
    const fine = `module.exports = { Isolate: class {} };`;
    expect(loadIn('fallback-6', { 'isolated-vm-6': broken, 'isolated-vm-5': fine })).toEqual({ code: 'LOADED', message: 'isolated-vm-5' });
    expect(loadIn('fallback-5', { 'isolated-vm-5': broken, 'isolated-vm-6': fine })).toEqual({ code: 'LOADED', message: 'isolated-vm-6' });
    const r = loadIn('broken', { 'isolated-vm-6': broken });
    expect(r.code).toBe('ISOLATED_VM_MISSING');
    expect(r.message).toContain('isolated-vm-6: The module was compiled against a different Node.js version');
    expect(r.message).toContain('isolated-vm-5: not installed');
  });
});

describe('published declarations', () => {
  // isolated-vm is installed only under its per-Node aliases, and a dependent installs only
  // `dependencies`: the declarations driverbox publishes must typecheck with just those there.
  it('typecheck in a project that has only driverbox and its dependencies, with skipLibCheck off', () => {
    const project = path.join(work, 'dependent');
    const modules = path.join(project, 'node_modules');
    const own = path.join(modules, 'driverbox');
    mkdirSync(own, { recursive: true });
    for (const entry of ['package.json', 'dist', 'types']) cpSync(entry, path.join(own, entry), { recursive: true });
    // What npm would install for a dependent (the declared dependencies, resolved from ours) and
    // the dependent's own @types/node. No devDependency, no optional native line.
    for (const name of [...Object.keys(pkg.dependencies), '@types/node']) {
      mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
      symlinkSync(path.resolve('node_modules', name), path.join(modules, name));
    }
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] }, files: ['uses.ts'] }),
    );
    writeFileSync(
      path.join(project, 'uses.ts'),
      `/// <reference types="driverbox/types/driver" />
import { createHost, openStore } from 'driverbox';
import { assertVariables, runDriver } from 'driverbox/testing';
export const used: unknown[] = [createHost, openStore, runDriver, assertVariables, D.device.http.get];
`,
    );
    const tsc = spawnSync(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8' });
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
    expect(tsc.status).toBe(0);
  }, 180_000); // tsc over the whole published surface: seconds alone, much longer on a loaded machine
});

describe('install scripts', () => {
  // npm 12 runs a dependency's install script (the native builds) only when allowScripts approves it.
  it('allowScripts approves every installed package that has an install script', () => {
    const ls = spawnSync('npm', ['install-scripts', 'ls'], { encoding: 'utf8' });
    const text = `${ls.stdout}${ls.stderr}`;
    if (/Unknown command|not a valid command/i.test(text)) return; // an npm older than 11.16 has no such policy
    expect(text).toContain('No packages with unreviewed install scripts');
    expect(ls.status).toBe(0);
  });
});
