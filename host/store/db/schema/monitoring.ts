// Schema v1, the emulated monitoring features: SNMP and TCP sensors, SNMP triggers, sensor
// histories, applications, VPN sessions and device connections, power actions, round-trip
// delay and speed-test samples, and the per-agent quotas (sensor count, connection bytes).
export const monitoringSchema = `
-- Quotas of an agent; an agent without a row has the defaults of monitoring-limits.ts.
CREATE TABLE agent_limits (
  agent_id INTEGER PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
  sensor_limit INTEGER,
  connection_limit_bytes INTEGER
);

CREATE TABLE snmp_sensors (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  oid TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('OTHER', 'CONSUMABLE', 'CPU', 'DISK_SPACE', 'MEMORY', 'NETWORK_TRAFFIC', 'TEMPERATURE')),
  value_type TEXT NOT NULL CHECK (value_type IN ('STRING', 'NUMERIC', 'ENUM')),
  creation_time INTEGER NOT NULL,
  last_update INTEGER,
  latest_value TEXT,
  latest_enum_value TEXT
);

CREATE TABLE snmp_sensor_history (
  sensor_id INTEGER NOT NULL REFERENCES snmp_sensors(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  value TEXT NOT NULL,
  enum_value TEXT
);
CREATE INDEX snmp_sensor_history_by_time ON snmp_sensor_history(sensor_id, timestamp);

CREATE TABLE snmp_triggers (
  id INTEGER PRIMARY KEY,
  sensor_id INTEGER NOT NULL REFERENCES snmp_sensors(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  function_id INTEGER NOT NULL,
  operands TEXT NOT NULL, -- JSON [string]
  creation_time INTEGER NOT NULL,
  alert_email INTEGER NOT NULL DEFAULT 0,
  alert_mobile INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE tcp_sensors (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  port INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('UP', 'DOWN')),
  last_update INTEGER NOT NULL,
  creation_time INTEGER NOT NULL,
  UNIQUE (device_id, port)
);

CREATE TABLE applications (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  application_id TEXT NOT NULL,
  name TEXT,
  publisher TEXT,
  version TEXT,
  info TEXT,
  install_location TEXT,
  install_date INTEGER,
  last_modified INTEGER,
  last_update INTEGER,
  first_time_seen INTEGER NOT NULL,
  UNIQUE (device_id, application_id)
);

CREATE TABLE vpn_sessions (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  name TEXT NOT NULL, -- the user that started it
  allowed_ip TEXT NOT NULL,
  routing_policy TEXT NOT NULL,
  bytes INTEGER NOT NULL DEFAULT 0,
  creation_time INTEGER NOT NULL,
  expiration_time INTEGER NOT NULL,
  closed_time INTEGER
);

CREATE TABLE device_connections (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  allowed_ip TEXT NOT NULL,
  port INTEGER NOT NULL,
  protocol TEXT NOT NULL,
  link TEXT NOT NULL,
  user TEXT NOT NULL,
  creation_time INTEGER NOT NULL,
  expiration_time INTEGER NOT NULL,
  bytes INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE power_actions (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('on', 'off', 'cycle', 'software-reboot')),
  user TEXT NOT NULL,
  timestamp INTEGER NOT NULL
);
CREATE INDEX power_actions_by_device ON power_actions(device_id, timestamp);

-- Which power actions a device offers; a device without a row offers all four.
CREATE TABLE power_availability (
  device_id INTEGER PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,
  power_on INTEGER NOT NULL,
  power_off INTEGER NOT NULL,
  power_cycle INTEGER NOT NULL,
  software_reboot INTEGER NOT NULL
);

CREATE TABLE rtd_samples (
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  min_ms REAL,
  max_ms REAL,
  median_ms REAL,
  sent_packet_count INTEGER NOT NULL,
  lost_packet_count INTEGER NOT NULL
);
CREATE INDEX rtd_samples_by_time ON rtd_samples(device_id, timestamp);

CREATE TABLE speed_samples (
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  download_bps INTEGER NOT NULL,
  upload_bps INTEGER NOT NULL
);
CREATE INDEX speed_samples_by_time ON speed_samples(agent_id, timestamp);
`;
