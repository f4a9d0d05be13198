// The jsconfig.json that gives a folder of drivers editor support: completion and checking of
// `D.*` in plain .js files, from the declarations the package ships in types/. One definition,
// so what `driverbox init` writes is what test/types.test.ts checks drivers with.

/** Where a project with driverbox installed finds the declarations (a package `exports` entry). */
export const DRIVER_TYPES = 'driverbox/types/driver';

export const DRIVER_JSCONFIG = {
  compilerOptions: {
    allowJs: true,
    checkJs: true,
    noEmit: true,
    // What the sandbox runs: the language only. No DOM, no Node (their globals do not exist in a driver).
    target: 'ES2022',
    lib: ['ES2022'],
    // bundler resolution honours the package's `exports`, and does not turn .js files into ES
    // modules because of a `"type": "module"` package.json (drivers are scripts: their
    // top-level functions are the entry points).
    module: 'esnext',
    moduleResolution: 'bundler',
    // Only the driver globals: resolved through node_modules from this folder up, so the
    // drivers may sit in any subfolder of a project that depends on driverbox.
    types: [DRIVER_TYPES],
  },
  include: ['**/*.js'],
} as const;

/** The file's text, as written to disk. */
export function driverJsconfigText(): string {
  return `${JSON.stringify(DRIVER_JSCONFIG, null, 2)}\n`;
}
