// Schema v6, the agent's network as the API configures and reads it: scan policies and
// settings, the interfaces and routed networks it monitors, camera snapshots recorded for
// devices, and the API's own call counts (apiUsageInfo).
export const networkingSchema = `
-- One row per agent and setting (interfaces_policy, ip_scan_policy, external_host_scan_policy,
-- dhcp_device_discovery), the value as the API shows it (JSON). No row: the default.
CREATE TABLE agent_network_settings (
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  name TEXT NOT NULL CHECK (name IN ('interfaces_policy', 'ip_scan_policy', 'external_host_scan_policy', 'dhcp_device_discovery')),
  value TEXT NOT NULL,
  update_time INTEGER NOT NULL,
  PRIMARY KEY (agent_id, name)
);

-- Interfaces recorded for an agent (an import, an embedder); netmask is a prefix length.
CREATE TABLE agent_interfaces (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  address TEXT,
  netmask INTEGER,
  mac_address TEXT
);
CREATE INDEX agent_interfaces_by_agent ON agent_interfaces(agent_id);

CREATE TABLE agent_routed_networks (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  address TEXT NOT NULL,
  netmask INTEGER NOT NULL,
  creation_time INTEGER NOT NULL,
  UNIQUE (agent_id, name)
);

-- The latest snapshot recorded for a camera device (driverbox speaks no ONVIF itself).
CREATE TABLE camera_snapshots (
  device_id INTEGER PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,
  content_type TEXT NOT NULL,
  image BLOB NOT NULL,
  taken_at INTEGER NOT NULL
);

-- API calls answered, counted per minute, key (a digest prefix, never the key), caller IP and
-- base resource; rows older than a day are pruned as new ones come.
CREATE TABLE api_usage (
  minute INTEGER NOT NULL,
  key_digest TEXT NOT NULL,
  ip TEXT NOT NULL,
  resource TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (minute, key_digest, ip, resource)
);
`;
