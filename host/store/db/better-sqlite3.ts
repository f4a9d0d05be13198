// The one place that loads better-sqlite3, which comes in lines (host/platform/native-lines.ts): 12.x
// (node::ObjectWrap) builds everywhere but aborts Node 24.19 and later when a statement is
// garbage-collected after its thread's environment is gone; 13.x (Node-API, prebuilt) needs Node
// 22 or later and crashes Node 20 (Node-API 10).
import type BetterSqlite3 from 'better-sqlite3';
import { loadNativeLine, type LoadedLine, type NativeLine } from '../../platform/native-lines.js';

/** Preferred first: on Node 22 both lines install, and 13 is used. */
export const BETTER_SQLITE3_LINES: readonly NativeLine[] = [
  { alias: 'better-sqlite3-13', nodeMajors: [22, 24] },
  { alias: 'better-sqlite3-12', nodeMajors: [20] },
];

let loaded: LoadedLine<typeof BetterSqlite3> | undefined;

/** The better-sqlite3 line for the running Node, loaded once; SQLITE_MISSING when none loads. */
export function loadBetterSqlite3(): LoadedLine<typeof BetterSqlite3> {
  loaded ??= loadNativeLine<typeof BetterSqlite3>('better-sqlite3', BETTER_SQLITE3_LINES, 'SQLITE_MISSING');
  return loaded;
}

/** better-sqlite3's Database constructor, from the line for this Node. */
export function openDatabase(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  return new (loadBetterSqlite3().module)(file, options);
}
