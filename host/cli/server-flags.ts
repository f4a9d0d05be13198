// The flags `serve` and `agent` share to open the store and serve the API: their parseArgs
// definitions, their help lines, and their resolution (flags > environment > config file >
// defaults kept in the data folder) with a usage error for each mistake.
import { readFileSync } from 'node:fs';
import { DEFAULT_PORT, resolveServerConfig, type ServerConfig } from '../config/server-config.js';
import { ConfigError } from '../contract/errors.js';
import type { CliIo } from './io.js';
import { parseIntegerFlag } from './options.js';
import { UsageError } from '../contract/errors.js';

export const serverFlagOptions = {
  store: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  'secret-key-file': { type: 'string' },
  'external-hosts': { type: 'string' },
  'cors-origin': { type: 'string', multiple: true },
} as const;

export const serverFlagsHelp = `  --store <file|url>        the store: a SQLite file, or postgres://user:pass@host/db shared by
                            several processes (env DRIVERBOX_STORE; default: driverbox.db in the data folder)
  --host <address>          listen address (default 127.0.0.1)
  --port <n>                listen port (default ${DEFAULT_PORT}; 0 picks a free one)
  --api-key <key>           an accepted API key, repeatable (env DRIVERBOX_API_KEYS, comma-separated;
                            default: a key made once and kept in <data folder>/api-key)
  --secret-key-file <file>  the secret device credentials are encrypted with (env DRIVERBOX_SECRET_KEY;
                            default: made once and kept in <data folder>/secret.key)
  --external-hosts <a,b>    hosts that drivers uploaded through the API may reach with D.createExternalDevice
                            (config externalHosts; default none; "*" for any host; drivers of the agent's
                            inventory may reach any host); the hosts named (*.example.com: any name under
                            it) are also where any driver's requests may be redirected
  --cors-origin <origin>    a browser origin allowed to call the API (CORS), repeatable: scheme://host[:port],
                            or * for any (config corsOrigins; default none: no CORS headers)`;

export interface ServerFlagValues {
  store?: string;
  host?: string;
  port?: string;
  'api-key'?: string[];
  'secret-key-file'?: string;
  'external-hosts'?: string;
  'cors-origin'?: string[];
}

/** Resolves the shared flags plus the JSON server config file (`configFile`, else env DRIVERBOX_CONFIG). */
export function serverConfigFromFlags(values: ServerFlagValues, configFile: string | undefined, io: CliIo): ServerConfig {
  const port = parseIntegerFlag('port', values.port, 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be a port number 0–65535 (got "${values.port}")`);
  try {
    const config = resolveServerConfig({
      flags: {
        store: values.store,
        host: values.host,
        port,
        apiKeys: values['api-key'],
        secretKeyFile: values['secret-key-file'],
        config: configFile,
        externalHosts: values['external-hosts'] === undefined ? undefined : values['external-hosts'].split(',').map((h) => h.trim()).filter(Boolean),
        corsOrigins: values['cors-origin'],
      },
      env: io.env,
      cwd: io.cwd,
    });
    for (const warning of config.warnings) io.stderr(`driverbox: ${warning}`);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

const SERVER_CONFIG_FIELDS = ['store', 'listen', 'apiKeys', 'secretKey', 'secretKeyFile', 'marketplace', 'externalHosts', 'corsOrigins', 'localAgent', 'storeBounds'];
const INVENTORY_FIELDS = ['version', 'devices', 'drivers', 'associations'];

/**
 * Whether a file given as --config is an agent inventory (what `agent --config` named before the
 * flag meant the server config file for both commands): YAML is (server configs are JSON); a JSON
 * object is when it has inventory fields and no server config field. Unreadable or broken: not,
 * so the server config reader reports it.
 */
export function isInventoryFile(file: string): boolean {
  if (/\.ya?ml$/i.test(file)) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  const keys = Object.keys(parsed);
  return keys.some((k) => INVENTORY_FIELDS.includes(k)) && !keys.some((k) => SERVER_CONFIG_FIELDS.includes(k));
}
