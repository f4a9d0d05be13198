// What `driverbox serve` (and later `driverbox agent`) runs with: the store file, the listen
// address, the accepted API keys and the credential secret. Each comes from a flag, else the
// environment, else a JSON config file, else a default; the key and secret defaults are made
// once and kept in the data folder (mode 0600), so a restarted server accepts the same key and
// can read the credentials it sealed.
import { ConfigError } from '../contract/errors.js';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { resolveMarketplaceSettings, type MarketplaceSettings } from '../api/marketplace/marketplace-routes.js';
import { checkCorsOrigin } from '../api/monitoring/cors.js';
import type { AgentAccessChange } from '../store/fleet/agents.js';
import { agentAccessChange, type AgentAccessInput } from './agent-access.js';
import { defaultDataDir, resolveStorePath } from '../store/db/data-dir.js';
import { isPostgresUrl, redactUrl } from '../store/db/database.js';
import { externalHostList } from '../agent/external-hosts.js';
import { DEFAULT_STORE_BOUNDS, type StoreBounds } from '../store/store.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenMode } from '../store/db/file-modes.js';

export interface ServerConfigFile {
  store?: string;
  listen?: { host?: string; port?: number };
  apiKeys?: string[];
  secretKey?: string;
  secretKeyFile?: string;
  /** The Marketplace API emulator's name, agreements, access URL base and trial length. */
  marketplace?: MarketplaceSettings;
  /** Hosts that drivers uploaded through the API may reach with D.createExternalDevice (default none; ["*"]: any). */
  externalHosts?: string[];
  /** Origins of browser pages allowed to call the API (CORS): scheme://host[:port] or "*"; default none. */
  corsOrigins?: string[];
  /** The plan and access right of the server's own agent ("driverbox"), set at each start. */
  localAgent?: AgentAccessInput;
  /** What a device's results may grow the store to (StoreBounds; null: unbounded); defaults DEFAULT_STORE_BOUNDS. */
  storeBounds?: Partial<StoreBounds>;
}

export interface ServerConfigInput {
  /** Flags given on the command line (undefined when not given). */
  flags: { store?: string; host?: string; port?: number; apiKeys?: string[]; secretKeyFile?: string; config?: string; externalHosts?: string[]; corsOrigins?: string[] };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface ServerConfig {
  storePath: string;
  listen: { host: string; port: number };
  apiKeys: string[];
  secretKey: string;
  /** From the config file; {} when it sets none (the emulator's defaults apply). */
  marketplace: MarketplaceSettings;
  /** Hosts drivers uploaded through the API may reach (--external-hosts, else the config file; default none). */
  externalHosts: string[];
  /** Browser origins allowed to call the API (--cors-origin, else the config file; default none: CORS off). */
  corsOrigins: string[];
  /** The config file's storeBounds, for openStore (unset ones keep their defaults). */
  storeBounds: Partial<StoreBounds>;
  /** What the config file's localAgent changes of the local agent at start; undefined: nothing. */
  localAgent?: AgentAccessChange;
  /** Where each setting came from, for the start-up banner. */
  sources: { apiKeys: string; secretKey: string };
  /** Things the operator should fix, printed at start (a secret key file others can read). */
  warnings: string[];
}

export const DEFAULT_PORT = 7420;

function readConfigFile(file: string): ServerConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the config file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`${file}: expected a JSON object`);
  const config = parsed as Record<string, unknown>;
  const known = new Set(['store', 'listen', 'apiKeys', 'secretKey', 'secretKeyFile', 'marketplace', 'externalHosts', 'corsOrigins', 'localAgent', 'storeBounds']);
  for (const key of Object.keys(config)) if (!known.has(key)) throw new ConfigError(`${file}: unknown field "${key}" (known: ${[...known].join(', ')})`);
  const expect = (ok: boolean, field: string, what: string) => {
    if (!ok) throw new ConfigError(`${file}: ${field} must be ${what}`);
  };
  if (config.store !== undefined) expect(typeof config.store === 'string', 'store', 'a file path or a postgres:// URL');
  if (config.listen !== undefined) {
    const listen = config.listen as Record<string, unknown>;
    expect(typeof listen === 'object' && listen !== null, 'listen', 'an object {host, port}');
    if (listen.host !== undefined) expect(typeof listen.host === 'string', 'listen.host', 'an address');
    if (listen.port !== undefined) expect(Number.isInteger(listen.port) && (listen.port as number) >= 0 && (listen.port as number) <= 65535, 'listen.port', 'a port number 0–65535');
  }
  if (config.apiKeys !== undefined) {
    expect(Array.isArray(config.apiKeys) && config.apiKeys.length > 0 && config.apiKeys.every((k) => typeof k === 'string' && k.length >= 8), 'apiKeys', 'a non-empty array of strings of 8 characters or more');
  }
  if (config.secretKey !== undefined) expect(typeof config.secretKey === 'string' && config.secretKey.length >= 8, 'secretKey', 'a string of 8 characters or more');
  if (config.secretKeyFile !== undefined) expect(typeof config.secretKeyFile === 'string', 'secretKeyFile', 'a file path');
  if (config.externalHosts !== undefined) {
    try {
      externalHostList(config.externalHosts, 'externalHosts');
    } catch (error) {
      throw new ConfigError(`${file}: ${(error as Error).message}`);
    }
  }
  if (config.corsOrigins !== undefined) {
    expect(Array.isArray(config.corsOrigins) && config.corsOrigins.every((o) => typeof o === 'string'), 'corsOrigins', 'an array of origins (scheme://host[:port], or "*")');
    for (const origin of config.corsOrigins as string[]) {
      try {
        checkCorsOrigin(origin, 'corsOrigins');
      } catch (error) {
        throw new ConfigError(`${file}: ${(error as Error).message}`);
      }
    }
  }
  if (config.storeBounds !== undefined) {
    const bounds = config.storeBounds as Record<string, unknown>;
    expect(typeof bounds === 'object' && bounds !== null && !Array.isArray(bounds), 'storeBounds', 'an object {variablesPerDevice, runsPerDevice, tablesPerDevice}');
    for (const [key, value] of Object.entries(bounds)) {
      if (!Object.hasOwn(DEFAULT_STORE_BOUNDS, key)) throw new ConfigError(`${file}: unknown field "storeBounds.${key}" (known: ${Object.keys(DEFAULT_STORE_BOUNDS).join(', ')})`);
      expect(value === null || (Number.isInteger(value) && (value as number) >= 1), `storeBounds.${key}`, 'an integer ≥ 1, or null for no bound');
    }
  }
  if (config.localAgent !== undefined) {
    const local = config.localAgent as Record<string, unknown>;
    expect(typeof local === 'object' && local !== null && !Array.isArray(local), 'localAgent', 'an object {plan, apiEnabled, access, grantingUser}');
    const fields = new Set(['plan', 'apiEnabled', 'access', 'grantingUser']);
    for (const key of Object.keys(local)) if (!fields.has(key)) throw new ConfigError(`${file}: unknown field "localAgent.${key}" (known: ${[...fields].join(', ')})`);
    for (const key of ['plan', 'access', 'grantingUser']) if (local[key] !== undefined) expect(typeof local[key] === 'string', `localAgent.${key}`, 'a string');
    if (local.apiEnabled !== undefined) expect(typeof local.apiEnabled === 'boolean', 'localAgent.apiEnabled', 'true or false');
    try {
      localAgentChange(config.localAgent as AgentAccessInput);
    } catch (error) {
      throw new ConfigError(`${file}: ${(error as Error).message}`);
    }
  }
  if (config.marketplace !== undefined) {
    const settings = config.marketplace as Record<string, unknown>;
    expect(typeof settings === 'object' && settings !== null && !Array.isArray(settings), 'marketplace', 'an object {marketplace, agreements, accessUrlBase, trialDays}');
    const fields = new Set(['marketplace', 'agreements', 'accessUrlBase', 'trialDays']);
    for (const key of Object.keys(settings)) if (!fields.has(key)) throw new ConfigError(`${file}: unknown field "marketplace.${key}" (known: ${[...fields].join(', ')})`);
    try {
      resolveMarketplaceSettings(settings as MarketplaceSettings);
    } catch (error) {
      throw new ConfigError(`${file}: ${(error as Error).message}`);
    }
  }
  const resolved = config as ServerConfigFile;
  const base = path.dirname(file);
  return {
    ...resolved,
    ...(resolved.store && resolved.store !== ':memory:' ? { store: isPostgresUrl(resolved.store) ? resolved.store : path.resolve(base, resolved.store) } : {}),
    ...(resolved.secretKeyFile ? { secretKeyFile: path.resolve(base, resolved.secretKeyFile) } : {}),
  };
}

const localAgentChange = (input: AgentAccessInput) =>
  agentAccessChange(input, { plan: 'localAgent.plan', apiEnabled: 'localAgent.apiEnabled', access: 'localAgent.access', grantingUser: 'localAgent.grantingUser' });

function readSecretFile(file: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`cannot read the ${what} file ${file}: ${(error as Error).message}`);
  }
  if (text.length < 8) throw new ConfigError(`the ${what} in ${file} is shorter than 8 characters`);
  return text;
}

/** A secret kept in the data folder: read it, or make it on first use. */
function keptSecret(file: string): string {
  // The data folder holds the store and these secrets: owner only (tightened when an older version left it open).
  ensurePrivateDir(path.dirname(file), true);
  if (existsSync(file)) {
    tightenMode(file, PRIVATE_FILE_MODE);
    return readSecretFile(file, 'generated secret');
  }
  const secret = randomBytes(24).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

function configured<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

export function resolveServerConfig({ flags, env, cwd }: ServerConfigInput): ServerConfig {
  const configPath = flags.config ?? env.DRIVERBOX_CONFIG;
  const file = configPath ? readConfigFile(path.resolve(cwd, configPath)) : {};
  const dataDir = defaultDataDir(env);

  const storePath = resolveStorePath({ flag: flags.store, env, cwd, configFile: file.store });

  let apiKeys: string[];
  let apiKeySource: string;
  const envKeys = env.DRIVERBOX_API_KEYS?.split(',').map((k) => k.trim()).filter(Boolean);
  if (flags.apiKeys?.length) [apiKeys, apiKeySource] = [flags.apiKeys, '--api-key'];
  else if (envKeys?.length) [apiKeys, apiKeySource] = [envKeys, 'DRIVERBOX_API_KEYS'];
  else if (file.apiKeys) [apiKeys, apiKeySource] = [file.apiKeys, 'the config file'];
  else {
    const keyFile = path.join(dataDir, 'api-key');
    [apiKeys, apiKeySource] = [[keptSecret(keyFile)], keyFile];
  }
  for (const key of apiKeys) if (key.length < 8) throw new ConfigError(`API keys must be 8 characters or more (${apiKeySource} has a shorter one)`);

  const warnings: string[] = [];
  // A secret file the operator gave is theirs to fix (it may be shared on purpose): said, not changed.
  const looseFile = (keyFile: string) => {
    if (process.platform === 'win32') return;
    try {
      const mode = statSync(keyFile).mode & 0o777;
      if (mode & 0o077) warnings.push(`the secret key file ${keyFile} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 it`);
    } catch {
      // read already, or the read reported why not
    }
  };
  let secretKey: string;
  let secretSource: string;
  const secretFlagFile = flags.secretKeyFile ? path.resolve(cwd, flags.secretKeyFile) : undefined;
  if (secretFlagFile) {
    [secretKey, secretSource] = [readSecretFile(secretFlagFile, 'secret key'), secretFlagFile];
    looseFile(secretFlagFile);
  }
  else if (env.DRIVERBOX_SECRET_KEY) {
    if (env.DRIVERBOX_SECRET_KEY.length < 8) throw new ConfigError('DRIVERBOX_SECRET_KEY is shorter than 8 characters');
    [secretKey, secretSource] = [env.DRIVERBOX_SECRET_KEY, 'DRIVERBOX_SECRET_KEY'];
  } else if (file.secretKey) [secretKey, secretSource] = [file.secretKey, 'the config file'];
  else if (file.secretKeyFile) {
    [secretKey, secretSource] = [readSecretFile(file.secretKeyFile, 'secret key'), file.secretKeyFile];
    looseFile(file.secretKeyFile);
  }
  else {
    const keyFile = path.join(dataDir, 'secret.key');
    [secretKey, secretSource] = [keptSecret(keyFile), keyFile];
  }

  return {
    storePath,
    listen: { host: flags.host ?? file.listen?.host ?? '127.0.0.1', port: flags.port ?? file.listen?.port ?? DEFAULT_PORT },
    apiKeys,
    secretKey,
    marketplace: file.marketplace ?? {},
    externalHosts: configured(() => externalHostList(flags.externalHosts ?? file.externalHosts ?? [], '--external-hosts')),
    corsOrigins: configured(() => (flags.corsOrigins ?? file.corsOrigins ?? []).map((origin) => checkCorsOrigin(origin, '--cors-origin'))),
    storeBounds: file.storeBounds ?? {},
    ...(file.localAgent ? { localAgent: localAgentChange(file.localAgent) } : {}),
    sources: { apiKeys: apiKeySource, secretKey: secretSource },
    warnings,
  };
}
