// Where driverbox keeps its files when the user names none: the platform's per-user data folder.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.DRIVERBOX_DATA_DIR) return env.DRIVERBOX_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'driverbox');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'driverbox');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'driverbox');
}

export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultDataDir(env), 'driverbox.db');
}
