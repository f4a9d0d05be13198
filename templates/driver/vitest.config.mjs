// Vitest looks for its configuration from the working directory upwards: this file makes
// `npx vitest run` inside this folder run this driver's tests, whatever configuration a parent
// folder (a repository, a monorepo) has. driverbox/testing needs no Node flags; the first
// runDriver of a file starts the sandbox process, hence more than vitest's default 5 s.
export default { test: { testTimeout: 30_000 } };
