// Where driverbox keeps its files when the user names none: the platform's per-user data folder.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isPostgresUrl } from './database.js';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.DRIVERBOX_DATA_DIR) return env.DRIVERBOX_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'driverbox');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'driverbox');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'driverbox');
}

/** driverbox.db in the data folder: where the store is when neither a flag nor DRIVERBOX_STORE names one. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultDataDir(env), 'driverbox.db');
}

export interface StorePathInput {
  /** The --store flag, when given. */
  flag?: string;
  env?: NodeJS.ProcessEnv;
  /** What a relative --store or DRIVERBOX_STORE is relative to. */
  cwd?: string;
  /** The store a server config file names (already absolute): below the environment, above the data folder. */
  configFile?: string;
}

/**
 * The store every command opens (a file, or a postgres:// URL kept as given) (run --report, drivers, serve, agent, demo, and openStore()
 * without a path): --store, else DRIVERBOX_STORE, else the config file's, else driverbox.db in
 * $DRIVERBOX_DATA_DIR or the platform's data folder. One rule, so what one command writes the
 * next one reads.
 */
export function resolveStorePath(input: StorePathInput = {}): string {
  const env = input.env ?? process.env;
  const named = input.flag ?? (env.DRIVERBOX_STORE || undefined);
  if (named !== undefined) return named === ':memory:' || isPostgresUrl(named) ? named : resolve(input.cwd ?? process.cwd(), named);
  return input.configFile ?? defaultStorePath(env);
}
