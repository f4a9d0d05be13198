// Full build: type-checks and emits host/ to dist/, then bundles runtime/ and the web console.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { buildConsole } from './build-console.mjs';
import { buildRuntime } from './build-runtime.mjs';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
execFileSync(process.execPath, [tsc, '-p', 'runtime/tsconfig.json'], { stdio: 'inherit' });
execFileSync(process.execPath, [tsc, '-p', 'console/tsconfig.json'], { stdio: 'inherit' });
await buildRuntime();
await buildConsole({ quiet: true });
