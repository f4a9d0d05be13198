// Editor support: types/driver.d.ts checked the way an editor checks a driver folder (a real
// project with driverbox installed and the jsconfig `driverbox init` writes), and compared with
// the D a driver really gets inside a sandbox, so the two cannot drift apart.
import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVER_JSCONFIG, DRIVER_TYPES, driverJsconfigText } from '../host/driver/jsconfig.js';
import { makeTestPki } from './helpers/certs.js';
import { PROBES, surfaceCheckFile, surfaceDriver, type RuntimeSurface, type SurfaceEntry } from './helpers/d-surface.js';
import { startDeviceServer, type DeviceServer } from './helpers/device-server.js';
import { runSource, useHost } from './helpers/host.js';
import { createDriverProject, packedFiles, programOf, typecheck, typecheckFiles, type Problem } from './helpers/typecheck.js';

const repoRoot = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
// Every example driver: a new one must type-check clean too.
const EXAMPLES = readdirSync(new URL('../drivers-examples/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();
const EVERY_MEMBER = read('test/fixtures/every-member.js');
const COMMON_PATTERNS = read('test/fixtures/common-patterns.js');
// Promise styles of the public example drivers (issue 19): `@returns {Promise}` helpers, `@param {function}` callbacks.
const PROMISE_PATTERNS = read('test/fixtures/promise-patterns.js');

/** Problems as `file:line TScode message`, for readable failures. */
const show = (problems: Problem[]) => problems.map((p) => `${p.file}:${p.line} TS${p.code} ${p.message}`);

/** Real device servers (HTTP, HTTPS) and a device aimed at them through the port map. */
function useDevice() {
  const servers: { http?: DeviceServer; https?: DeviceServer } = {};
  beforeAll(async () => {
    const pki = await makeTestPki();
    servers.http = await startDeviceServer();
    servers.https = await startDeviceServer({ tls: pki.valid });
  });
  afterAll(async () => {
    await servers.http?.close();
    await servers.https?.close();
  });
  return {
    servers,
    device: () => ({
      ip: '127.0.0.1',
      host: 'localhost',
      username: 'admin',
      password: 'secret',
      serial: 'SN-1',
      macAddress: '00:11:22:33:44:55',
      portMap: { 80: servers.http!.port, 443: servers.https!.port },
    }),
  };
}

describe('shipping the declarations', () => {
  it('npm pack includes types/ (every file driver.d.ts references), and package.json exports it as driverbox/types/driver', () => {
    const files = packedFiles();
    const referenced = [...read('types/driver.d.ts').matchAll(/\/\/\/ <reference path="\.\/([^"]+)" \/>/g)].map((m) => `types/${m[1]}`);
    expect(referenced.length).toBeGreaterThan(0);
    for (const path of ['types/driver.d.ts', ...referenced]) expect(files).toContain(path);
    const pkg = JSON.parse(read('package.json')) as { files: string[]; exports: Record<string, { types?: string }> };
    expect(pkg.exports[`./${DRIVER_TYPES.slice('driverbox/'.length)}`]).toEqual({ types: './types/driver.d.ts' });
  });
});

describe('the jsconfig', () => {
  it('docs/reference/driver-api.md shows exactly the jsconfig driverbox init writes', () => {
    const section = read('docs/reference/driver-api.md').split('## Editor support')[1]!;
    const shown = /```json\n([\s\S]*?)```/.exec(section)![1];
    expect(JSON.parse(shown!)).toEqual(JSON.parse(driverJsconfigText()));
  });
});

describe('correct drivers type-check without a single diagnostic', () => {
  it('the example drivers, a driver using every member of D and one in the styles of drivers in the wild, in subfolders, with the jsconfig driverbox init writes', () => {
    const project = createDriverProject({
      ...Object.fromEntries(EXAMPLES.map((name) => [`drivers/${name}/driver.js`, read(`drivers-examples/${name}/driver.js`)])),
      'drivers/every-member/driver.js': EVERY_MEMBER,
      'drivers/common-patterns/driver.js': COMMON_PATTERNS,
      'drivers/promise-patterns/driver.js': PROMISE_PATTERNS,
    });
    const program = programOf(project);
    const checked = program.getRootFileNames().map((f) => f.slice(project.dir.length + 1)).sort();
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(8);
    expect(checked).toEqual(['drivers/common-patterns/driver.js', 'drivers/every-member/driver.js', 'drivers/promise-patterns/driver.js', ...EXAMPLES.map((name) => `drivers/${name}/driver.js`)].sort());
    expect(show(typecheck(project))).toEqual([]);
  });

  describe('the driver using every member also runs as written', () => {
    const host = useHost({ externalHosts: ['127.0.0.1'] });
    const { device, servers } = useDevice();
    const run = (action: string) =>
      runSource(host, EVERY_MEMBER, {
        action,
        device: device(),
        parameters: { site: 'lab', externalPort: servers.http!.port, errorType: 'PARSING_ERROR' },
      });

    it('get_status succeeds with its variables and table', async () => {
      const result = await run('get_status');
      expect(result.message).toBeNull();
      expect(result.status).toBe('success');
      const values = Object.fromEntries(result.variables.map((v) => [v.uid, v.value]));
      expect(values).toMatchObject({ ip: '127.0.0.1', host: 'localhost', serial: 'SN-1', echo: 'POST 200 OK 152', ext: '127.0.0.1 127.0.0.1 cloud key 200', names: 'DISK1,DISK2', used: '75', site: 'lab' });
      expect(values.crypto).toBe('900150983cd24fb0d6963f7d28e17f72 32 status');
      expect(result.tables[0]!.rows).toEqual([
        ['disk-0', 'disk1', '41', 'false'],
        ['disk-1', 'disk2', '75', 'true'],
      ]);
      expect(result.logs.map((l) => l.level)).toEqual(['log', 'info', 'warn', 'warn', 'error', 'debug', 'debug', 'debug', 'debug']);
    });

    it('validate succeeds and custom_1 fails with the error type it was given', async () => {
      expect((await run('validate')).status).toBe('success');
      expect(await run('custom_1')).toMatchObject({ status: 'failure', errorType: 'PARSING_ERROR' });
    });
  });
});

describe('the promise patterns also run as written', () => {
  const host = useHost();
  const { device } = useDevice();

  it('get_status: D.q.all of three helpers (one through a `@param {function}` callback), then .catch', async () => {
    const result = await runSource(host, PROMISE_PATTERNS, { device: device() });
    expect(result.message).toBeNull();
    expect(result.variables.map((v) => [v.uid, v.value])).toEqual([['text', 'code-200']]);
    expect(result.tables[0]!.rows).toEqual([
      ['system', 'GET', '/api/system'],
      ['volumes', 'GET', '/api/volumes'],
    ]);
  });

  it('validate: D.q.allSettled sees the 503 as rejected; custom_1: .spread, .fail, .fin and .done() on a `@returns {Promise}` result', async () => {
    const validate = await runSource(host, PROMISE_PATTERNS, { device: device(), action: 'validate' });
    expect(validate.status).toBe('success');
    expect(validate.logs).toEqual([{ level: 'info', message: 'checks: fulfilled,rejected,fulfilled' }]);
    const custom = await runSource(host, PROMISE_PATTERNS, { device: device(), action: 'custom_1' });
    expect(custom.status).toBe('success');
    expect(custom.logs).toEqual([{ level: 'info', message: 'reboot answered 200' }]);
  });

  it('a D.q promise is tagged as a Promise, as its declaration (it extends Promise) says', async () => {
    const source = `function get_status() { var p = D.q.defer().promise; D.success([D.createVariable('tag', 'Tag', p[Symbol.toStringTag] + ' ' + Object.prototype.toString.call(D.q(1)))]); }`;
    const result = await runSource(host, source, { device: device() });
    expect(result.variables[0]?.value).toBe('Promise [object Promise]');
  });
});

describe('other ways to load the declarations', () => {
  const good = `D.device.http.get({ url: '/' }, function (error, response, body) {\n  if (error) return D.failure(D.errorType.NETWORK_ERROR);\n  D.success([D.createVariable('len', 'Length', body.length, 'B', D.valueType.NUMBER)]);\n});\n`;
  const bad = `D.device.http.get({ url: '/', port: 'x' }, function () {});\n`;
  const portProblem = { code: 2322, message: "Type 'string' is not assignable to type 'number'." };

  it('a `/// <reference types="driverbox/types/driver" />` line in the driver, with no jsconfig', () => {
    const reference = `/// <reference types="${DRIVER_TYPES}" />\n`;
    const project = createDriverProject({ 'good.js': reference + good, 'bad.js': reference + bad }, null);
    const options: ts.CompilerOptions = {
      allowJs: true,
      checkJs: true,
      noEmit: true,
      lib: ['lib.es2022.d.ts'],
      types: [],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    };
    expect(show(typecheckFiles(project, ['good.js'], options))).toEqual([]);
    expect(typecheckFiles(project, ['bad.js'], options)).toEqual([{ file: 'bad.js', line: 2, ...portProblem }]);
  });

  it('next to the DOM library and @types/node, as in an editor project without a jsconfig', () => {
    const project = createDriverProject({ 'good.js': `// @ts-check\n/// <reference types="${DRIVER_TYPES}" />\n${good}` }, null);
    symlinkSync(join(repoRoot, 'node_modules', '@types'), join(project.dir, 'node_modules', '@types'), 'dir');
    const options: ts.CompilerOptions = {
      allowJs: true,
      noEmit: true,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
    };
    expect(show(typecheckFiles(project, ['good.js'], options))).toEqual([]);
  });

  it('a jsconfig that includes node_modules/driverbox/types/driver.d.ts by path', () => {
    const jsconfig = { compilerOptions: { checkJs: true, allowJs: true, noEmit: true, lib: ['ES2022'], types: [] }, include: ['*.js', 'node_modules/driverbox/types/driver.d.ts'] };
    const project = createDriverProject({ 'good.js': good, 'bad.js': bad }, JSON.stringify(jsconfig));
    expect(typecheck(project)).toEqual([{ file: 'bad.js', line: 1, ...portProblem }]);
  });

  it('the same jsconfig with node10 module resolution (which ignores package exports)', () => {
    const jsconfig = { ...DRIVER_JSCONFIG, compilerOptions: { ...DRIVER_JSCONFIG.compilerOptions, module: 'commonjs', moduleResolution: 'node10' } };
    const project = createDriverProject({ 'good.js': good, 'bad.js': bad }, JSON.stringify(jsconfig));
    expect(typecheck(project)).toEqual([{ file: 'bad.js', line: 1, ...portProblem }]);
  });
});

describe('mistakes are reported where they are', () => {
  interface Mistake {
    what: string;
    code: string;
    expected: Array<{ line: number; code: number; message: string }>;
  }
  const MISTAKES: Mistake[] = [
    {
      what: 'using the first callback argument (the error) as the response',
      code: `D.device.http.get('/status', function (response, body) {\n  if (response.statusCode === 200) D.success();\n});`,
      expected: [{ line: 2, code: 2339, message: "Property 'statusCode' does not exist on type 'HttpError'." }],
    },
    {
      what: 'reading the certificate from the error argument of getTLSCertificate',
      code: `D.device.http.getTLSCertificate({ port: 443 }, function (certificate) {\n  console.log(certificate.expiry);\n});`,
      expected: [{ line: 2, code: 2339, message: "Property 'expiry' does not exist on type 'HttpError'." }],
    },
    {
      what: 'leaving out the callback',
      code: `D.device.http.post({ url: '/reboot' });`,
      expected: [{ line: 1, code: 2554, message: 'Expected 2 arguments, but got 1.' }],
    },
    {
      what: 'passing three arguments to D.success',
      code: `var table = D.createTable('T', [{ label: 'a' }]);\nD.success([], table, []);`,
      expected: [{ line: 2, code: 2554, message: 'Expected 0-2 arguments, but got 3.' }],
    },
    {
      what: 'a misspelt D.device.http function',
      code: `D.device.http.gett({ url: '/' }, function () {});`,
      expected: [{ line: 1, code: 2551, message: "Property 'gett' does not exist on type 'Http'. Did you mean 'get'?" }],
    },
    {
      what: 'a string that is not a D.valueType',
      code: `D.success([D.createVariable('load', 'Load', 0.5, '%', 'number')]);`,
      expected: [{ line: 1, code: 2345, message: `Argument of type '"number"' is not assignable to parameter of type 'ValueType'.` }],
    },
    {
      what: 'a string variable where a D.valueType is expected',
      code: `var type = 'NUMBER';\nD.createVariable('load', 'Load', 0.5, '%', type);`,
      expected: [{ line: 2, code: 2345, message: "Argument of type 'string' is not assignable to parameter of type 'ValueType'." }],
    },
    {
      what: 'a column value type that is not a D.valueType',
      code: `D.createTable('T', [{ label: 'a', valueType: 'INTEGER' }]);`,
      expected: [{ line: 1, code: 2322, message: `Type '"INTEGER"' is not assignable to type 'ValueType'.` }],
    },
    {
      what: 'an error type that does not exist',
      code: `D.failure('TIMEOUT');`,
      expected: [{ line: 1, code: 2345, message: `Argument of type '"TIMEOUT"' is not assignable to parameter of type 'ErrorType'.` }],
    },
    {
      what: "a port given as text (port: 'x')",
      code: `D.device.http.get({ url: '/', port: 'x' }, function () {});`,
      expected: [{ line: 1, code: 2322, message: "Type 'string' is not assignable to type 'number'." }],
    },
    {
      what: 'a misspelt request option',
      code: `D.device.http.get({ url: '/', timout: 5000 }, function () {});`,
      expected: [{ line: 1, code: 2322, message: "Type 'number' is not assignable to type 'number & UnknownHttpOption'.\n  Type 'number' is not assignable to type 'UnknownHttpOption'." }],
    },
    {
      what: 'a Buffer body (encoding: null) used as text',
      code: `D.device.http.get({ url: '/', encoding: null }, function (error, response, body) {\n  D.success([D.createVariable('v', 'V', JSON.parse(body).version)]);\n});`,
      expected: [{ line: 2, code: 2345, message: "Argument of type 'Buffer' is not assignable to parameter of type 'string'." }],
    },
    {
      what: 'an entry point, declared as one, that expects an argument',
      code: `/** @type {Driverbox.EntryPoint} */\nvar get_status = function (callback) { callback(); };`,
      expected: [{ line: 2, code: 2322, message: "Type '(callback: any) => void' is not assignable to type 'EntryPoint'.\n  Target signature provides too few arguments. Expected 1 or more, but got 0." }],
    },
    {
      what: 'a helper documented `@returns {Promise<number>}` that returns a promise for text',
      code: `/** @returns {Promise<number>} */\nfunction count() { return D.q('three'); }`,
      expected: [
        {
          line: 2,
          code: 2322,
          message:
            "Type 'QPromise<string>' is not assignable to type 'Promise<number>'.\n  Types of property 'then' are incompatible.\n    Type '<R1 = string, R2 = never>(onFulfilled?: (value: string) => QValue<R1>, onRejected?: (reason: any) => QValue<R2>, onProgress?: (progress: any) => unknown) => QPromise<R1 | R2>' is not assignable to type '<TResult1 = number, TResult2 = never>(onfulfilled?: (value: number) => TResult1 | PromiseLike<TResult1>, onrejected?: (reason: any) => TResult2 | PromiseLike<TResult2>) => Promise<...>'.\n      Types of parameters 'onFulfilled' and 'onfulfilled' are incompatible.\n        Types of parameters 'value' and 'value' are incompatible.\n          Type 'string' is not assignable to type 'number'.",
        },
      ],
    },
    {
      what: 'a callback documented with another shape (`function(string): void`) passed to D.device.http.get',
      code: `/** @param {function(string): void} onText */\nfunction fetchText(onText) { D.device.http.get('/text', onText); }`,
      expected: [
        {
          line: 2,
          code: 2345,
          message:
            "Argument of type '(arg0: string) => void' is not assignable to parameter of type 'Callback<(arg0: string) => void, HttpCallback<string>>'.\n  Type '(arg0: string) => void' is not assignable to type 'HttpCallback<string>'.\n    Types of parameters 'arg0' and 'error' are incompatible.\n      Type 'HttpError' is not assignable to type 'string'.",
        },
      ],
    },
    {
      what: 'a callback that is not a function',
      code: `D.device.http.get('/status', 'onAnswer');`,
      expected: [{ line: 1, code: 2345, message: "Argument of type 'string' is not assignable to parameter of type 'Function | HttpCallback<string>'." }],
    },
    {
      what: 'a method q promises do not have',
      code: `D.q.defer().promise.succeed();`,
      expected: [{ line: 1, code: 2339, message: "Property 'succeed' does not exist on type 'QPromise<any>'." }],
    },
    {
      what: 'a misspelt member of D',
      code: `D.createVariabel('v', 'V', 1);`,
      expected: [{ line: 1, code: 2551, message: "Property 'createVariabel' does not exist on type 'D'. Did you mean 'createVariable'?" }],
    },
    {
      what: 'a global the sandbox does not have (issue 18 gave drivers timers; setImmediate stays missing)',
      code: `setImmediate(function () { D.success(); });`,
      expected: [{ line: 1, code: 2304, message: "Cannot find name 'setImmediate'." }],
    },
  ];

  let problems: Problem[] = [];
  beforeAll(() => {
    const project = createDriverProject(Object.fromEntries(MISTAKES.map((m, i) => [`mistake-${i}.js`, `${m.code}\n`])));
    problems = typecheck(project);
  });

  it('nothing outside the mistaken lines is reported', () => {
    const files = new Set(MISTAKES.map((_, i) => `mistake-${i}.js`));
    expect(show(problems.filter((p) => !files.has(p.file)))).toEqual([]);
  });

  it.each(MISTAKES.map((m, i) => [m.what, i, m] as const))('%s', (_what, index, mistake) => {
    const mine = problems.filter((p) => p.file === `mistake-${index}.js`).map(({ line, code, message }) => ({ line, code, message }));
    expect(mine).toEqual(mistake.expected);
  });
});

describe('the declarations cover what the runtime provides', () => {
  const host = useHost({ externalHosts: ['127.0.0.1'] });
  const { device } = useDevice();
  let surface: RuntimeSurface;
  let checked: { program: ts.Program; file: ts.SourceFile; entryAtLine: Map<number, SurfaceEntry>; problems: Problem[] };

  beforeAll(async () => {
    const result = await runSource(host, surfaceDriver(), { device: device() });
    expect(result.message).toBeNull();
    surface = JSON.parse(result.logs.at(-1)!.message) as RuntimeSurface;
    const { text, entryAtLine } = surfaceCheckFile(surface.entries);
    const project = createDriverProject({ 'surface.js': text });
    const program = programOf(project);
    checked = { program, file: program.getSourceFile(join(project.dir, 'surface.js'))!, entryAtLine, problems: typecheck(project) };
  });

  /** The type the declarations give each runtime member, by its line in surface.js. */
  function declaredTypes(): Array<{ entry: SurfaceEntry; type: ts.Type }> {
    const checker = checked.program.getTypeChecker();
    const out: Array<{ entry: SurfaceEntry; type: ts.Type }> = [];
    const visit = (node: ts.Node) => {
      if (ts.isExpressionStatement(node)) {
        const line = checked.file.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        const entry = checked.entryAtLine.get(line);
        if (entry) out.push({ entry, type: checker.getTypeAtLocation(node.expression) });
      }
      ts.forEachChild(node, visit);
    };
    visit(checked.file);
    return out;
  }

  const ownDeclaration = (symbol: ts.Symbol) => (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.includes('/node_modules/driverbox/types/'));

  it('the walk reached every probe, and every probe was a real value', () => {
    for (const probe of PROBES) expect(surface.entries.filter((e) => e.path.startsWith(`${probe.name}.`)).length, probe.name).toBeGreaterThan(0);
    const paths = new Set(surface.entries.map((e) => e.path));
    for (const path of ['D.device.http.getTLSCertificate', 'HttpResponse.statusCode', 'HttpError.code', 'TlsCertificate.fingerprint256', 'Lodash.memoize.Cache', 'Q.Promise.all', 'Cheerio.extract', 'Document.x-mode']) {
      expect(paths).toContain(path);
    }
    expect(surface.entries.find((e) => e.path === 'HttpError.code')?.value).toBe('INVALID_URL');
  });

  it('the only globals a driver gets beyond a bare V8 context are D, require and the timers; console replaces V8\'s own', () => {
    // require is left undeclared on purpose (see the end of types/driver.d.ts).
    const bare = new Set(runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[]);
    expect(bare.has('console')).toBe(true);
    expect(surface.globals.filter((name) => !bare.has(name)).sort()).toEqual(['D', 'clearInterval', 'clearTimeout', 'require', 'setInterval', 'setTimeout']);
    expect(surface.entries.filter((e) => e.path.startsWith('console.')).map((e) => e.path)).toContain('console.verbose');
  });

  it('every member found at run time is declared', () => {
    const undeclared = checked.problems.map((p) => {
      const entry = p.file === 'surface.js' ? checked.entryAtLine.get(p.line) : undefined;
      return entry ? `${entry.path}: ${p.message}` : `${p.file}:${p.line} ${p.message}`;
    });
    expect(undeclared).toEqual([]);
    expect(checked.entryAtLine.size).toBe(surface.entries.length);
  });

  it('every required member the declarations promise exists at run time', () => {
    const checker = checked.program.getTypeChecker();
    const children = new Map<string, Set<string>>();
    for (const { path } of surface.entries) {
      const cut = path.lastIndexOf('.');
      if (cut < 0) continue;
      const parent = path.slice(0, cut);
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent)!.add(path.slice(cut + 1));
    }
    const missing: string[] = [];
    for (const { entry, type } of declaredTypes()) {
      if (entry.listed !== 'all') continue;
      for (const symbol of checker.getPropertiesOfType(checker.getApparentType(type))) {
        const name = symbol.getName();
        if (!ownDeclaration(symbol) || symbol.flags & ts.SymbolFlags.Optional || name.startsWith('__@')) continue;
        if (!children.get(entry.path)?.has(name)) missing.push(`${entry.path}.${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('declared callable exactly where the runtime has a function', () => {
    const wrong = declaredTypes()
      .filter(({ entry, type }) => {
        const callable = type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0;
        return callable !== (entry.kind === 'function');
      })
      .map(({ entry, type }) => `${entry.path}: runtime ${entry.kind}, declared ${checked.program.getTypeChecker().typeToString(type)}`);
    expect(wrong).toEqual([]);
  });

  it('D.errorType and D.valueType are literal types equal to their values (and so is every other declared literal)', () => {
    const checker = checked.program.getTypeChecker();
    const constants = declaredTypes().filter(({ entry }) => /^D\.(errorType|valueType)\./.test(entry.path));
    expect(constants.map(({ entry }) => entry.path.split('.')[2]).sort()).toEqual([
      'AUTHENTICATION_ERROR', 'BOOLEAN', 'DATETIME', 'GENERIC_ERROR', 'IMPORT_NOT_ALLOWED', 'MISSING_DEVICE_ERROR', 'MONOTONE_RATE',
      'NETWORK_ERROR', 'NUMBER', 'PARSING_ERROR', 'RATE', 'REQUIRE_NOT_ALLOWED', 'RESOURCE_UNAVAILABLE', 'STRING', 'TIMEOUT_ERROR',
      'TOO_MANY_VARIABLES_ERROR',
    ]);
    for (const { entry, type } of constants) expect(type.isStringLiteral(), entry.path).toBe(true);
    const wrong = declaredTypes()
      .filter(({ entry, type }) => type.isStringLiteral() && type.value !== entry.value)
      .map(({ entry, type }) => `${entry.path}: runtime ${JSON.stringify(entry.value)}, declared ${checker.typeToString(type)}`);
    expect(wrong).toEqual([]);
  });
});
