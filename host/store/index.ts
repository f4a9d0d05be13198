// The embedded store's public surface.
export { openStore, Store, type StoreOptions } from './store.js';
export { StoreError, type StoreErrorCode } from './store-error.js';
export { defaultDataDir, defaultStorePath } from './data-dir.js';
export { SCHEMA_VERSION } from './migrations.js';
