// Schema v1, core: agents, devices, their credentials and their status histories.
// Times are integer ms since the epoch (UTC); nested API objects the store never queries
// into are kept as JSON text.
export const coreSchema = `
CREATE TABLE agents (
  id INTEGER PRIMARY KEY,
  display_name TEXT NOT NULL,
  creation_time INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'ONLINE' CHECK (status IN ('ONLINE', 'OFFLINE')),
  status_last_change INTEGER NOT NULL,
  api_enabled INTEGER NOT NULL DEFAULT 1,
  access_status TEXT NOT NULL DEFAULT 'OWNED' CHECK (access_status IN ('OWNED', 'PROPOSED', 'GRANTED', 'ASSIGNED')),
  granting_user TEXT,
  timezone TEXT NOT NULL DEFAULT 'UTC',
  listen_on TEXT,
  agent_version TEXT,
  package_version TEXT,
  enterprise_plan INTEGER NOT NULL DEFAULT 0,
  -- installation_info, licence, location, organization, team: JSON objects shown as stored
  extra TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE agent_events (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('CONNECTION_RECOVERED', 'CONNECTION_LOST', 'UP', 'DOWN'))
);
CREATE INDEX agent_events_by_time ON agent_events(agent_id, timestamp);

CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  main_id INTEGER,
  display_name TEXT NOT NULL,
  protocol TEXT NOT NULL DEFAULT 'IP' CHECK (protocol IN ('IP', 'DUMMY', 'IP_EXTERNAL')),
  -- the address drivers reach: ip, host name (external hosts and named devices), port map JSON
  ip TEXT,
  host_name TEXT,
  port_map TEXT NOT NULL DEFAULT '{}',
  ip_addresses TEXT NOT NULL DEFAULT '[]',
  mac_address TEXT,
  status TEXT NOT NULL DEFAULT 'ONLINE' CHECK (status IN ('ONLINE', 'OFFLINE', 'DOWN')),
  hidden INTEGER NOT NULL DEFAULT 0,
  last_status_change INTEGER,
  first_seen_on INTEGER NOT NULL,
  importance TEXT NOT NULL DEFAULT 'FLOATING' CHECK (importance IN ('VITAL', 'FLOATING')),
  authentication_status TEXT NOT NULL DEFAULT 'NO_AUTHENTICATION'
    CHECK (authentication_status IN ('NO_AUTHENTICATION', 'AUTHENTICATED', 'PENDING', 'REQUIRED', 'WRONG_CREDENTIALS')),
  vendor TEXT,
  model TEXT,
  -- details, os, type, user_data, open_ports: JSON objects as the API shows them
  details TEXT NOT NULL DEFAULT '{}',
  os TEXT NOT NULL DEFAULT '{}',
  type TEXT NOT NULL DEFAULT '{}',
  user_data TEXT NOT NULL DEFAULT '{}',
  open_ports TEXT NOT NULL DEFAULT '{"tcp":[],"udp":[]}',
  -- SNMP authentication: sealed JSON (it holds keys and communities), see secret-box.ts
  snmp_authentication TEXT
);
CREATE INDEX devices_by_agent ON devices(agent_id);

-- Sealed with the store's secret box; scope as the API names it (DEVICE_MANAGEMENT,
-- CUSTOM_DRIVER_MANAGEMENT…).
CREATE TABLE device_credentials (
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  scope TEXT NOT NULL,
  username TEXT NOT NULL,
  password_sealed TEXT NOT NULL,
  update_time INTEGER NOT NULL,
  PRIMARY KEY (device_id, scope)
);

CREATE TABLE device_events (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('IP_CHANGE', 'CREATED', 'UP', 'DOWN')),
  details TEXT
);
CREATE INDEX device_events_by_time ON device_events(device_id, timestamp);
`;
