// The lazily loaded lodash library of the sandbox (D._): lodash's own exports, bundled on their own.
import { exportLib } from './export';

// Bundled by esbuild: require() of a CommonJS package is its own exports, where `import x from`
// would wrap them in a copy with a getter per property, made in every run's context (lodash's
// ~300 properties were ~20% of its cost).
declare const require: (name: string) => unknown;

exportLib(require('lodash'));
