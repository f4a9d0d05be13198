// Public constants of D. Values equal their names, as on the public collector,
// so D.failure('PARSING_ERROR') and D.failure(D.errorType.PARSING_ERROR) agree.

const names = <T extends string>(list: readonly T[]): { readonly [K in T]: K } =>
  Object.freeze(Object.fromEntries(list.map((n) => [n, n])) as { [K in T]: K });

export const errorType = names([
  'MISSING_DEVICE_ERROR',
  'RESOURCE_UNAVAILABLE',
  'AUTHENTICATION_ERROR',
  'PARSING_ERROR',
  'TIMEOUT_ERROR',
  'IMPORT_NOT_ALLOWED',
  'REQUIRE_NOT_ALLOWED',
  'GENERIC_ERROR',
  'TOO_MANY_VARIABLES_ERROR',
  'NETWORK_ERROR',
] as const);

export const valueType = names(['STRING', 'NUMBER', 'DATETIME', 'RATE', 'MONOTONE_RATE', 'BOOLEAN'] as const);

/** Field bounds of variables and tables (the documented limits of the public collector). */
export const bounds = Object.freeze({
  uid: 50,
  variableLabel: 100,
  value: 500,
  unit: 10,
  tableLabel: 50,
  columnLabel: 30,
  recordId: 50,
  // Metadata of a metric or a table cell (runtime/metadata.ts): a link or two, never a payload.
  metadataKeys: 20,
  metadataKey: 50,
  metadataText: 2_000,
  /** All cell metadata of one table, keys and texts (our bound: 1,000 rows of links fit). */
  tableMetadataChars: 262_144,
});

/** Configuration backups (D.createBackup): the platform's 1 MiB per configuration, in characters; our label bound. */
export const backupBounds = Object.freeze({
  configurationChars: 1048576,
  label: 255,
});

export const reservedPathWords = ['table', 'column', 'history'];

/** An interval (setInterval) fires at most this often: a 0 ms interval cannot spin (browsers clamp too). */
export const MIN_INTERVAL_MS = 10;
