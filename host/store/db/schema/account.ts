// Schema v4, the account-level records of the Public API: the custom inventory (fields defined
// once, values per device), the company (areas, teams and their leaders) and alert profiles with
// their bindings to agents and devices.
export const accountSchema = `
-- Inventory fields, listed in creation order (rowid breaks ties). defined_by_user is the id of
-- the user who defined the field (the API key's user, 1, for fields made through the API).
CREATE TABLE inventory_fields (
  key TEXT PRIMARY KEY,
  label TEXT NOT NULL,
  creation_time INTEGER NOT NULL,
  defined_by_user INTEGER NOT NULL
);

-- A device's value of a field; deleting the field or the device deletes its values.
-- creation_time is when the device's value was first set (a later set keeps it).
CREATE TABLE device_inventory_values (
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  key TEXT NOT NULL REFERENCES inventory_fields(key) ON DELETE CASCADE,
  value TEXT NOT NULL,
  creation_time INTEGER NOT NULL,
  PRIMARY KEY (device_id, key)
);

-- Users other than the API key's own (id 1): the team leaders createTeam makes. Their
-- passwords are not kept (the local server has no logins).
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  display_name TEXT NOT NULL,
  creation_time INTEGER NOT NULL
);

-- The company's areas and teams made through the API. Those named only in an agent's
-- extra.team (set by an embedder) are listed beside them: see host/store/account/company.ts.
CREATE TABLE areas (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL
);
CREATE TABLE teams (
  id INTEGER PRIMARY KEY,
  area_id INTEGER NOT NULL REFERENCES areas(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  -- a user of users, or one an agent's extra.team named
  leader_id INTEGER
);
CREATE INDEX teams_by_area ON teams(area_id);

-- The single area of an account that has not made others.
INSERT INTO areas (id, name) VALUES (1, 'Main area');

-- Alert profiles: a built-in catalogue like the cloud's defaults (below), plus any an
-- embedder adds with createAlertProfile. events is a JSON array of event names.
CREATE TABLE alert_profiles (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  tag TEXT,
  events TEXT NOT NULL DEFAULT '[]',
  is_enabled INTEGER NOT NULL DEFAULT 1
);
INSERT INTO alert_profiles (id, name, description, tag, events) VALUES
  (1, 'Agent alerts', 'The agent goes offline or comes back, its WAN or LAN changes, a speed test completes', 'agent',
   '["agent_status_down","agent_status_up","agent_wan_change","agent_lan_change","agent_speed_test","agent_security_issue"]'),
  (2, 'Device status', 'A device goes down or comes back up', 'device',
   '["device_status_down","device_status_up"]'),
  (3, 'Device discovery and changes', 'A new device joins the network, a device changes IP address or loses its heartbeat', 'device',
   '["agent_device_discovery","device_ip_change","device_heartbeat_lost"]'),
  (4, 'Device monitors', 'SNMP and TCP sensors, round-trip delay and configuration changes of a device', 'device',
   '["device_snmp","device_tcp","device_rtd","device_configuration_change","device_configuration_misalignment"]');

CREATE TABLE alert_profile_agent_bindings (
  alert_profile_id INTEGER NOT NULL REFERENCES alert_profiles(id) ON DELETE CASCADE,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  PRIMARY KEY (agent_id, alert_profile_id)
);
CREATE TABLE alert_profile_device_bindings (
  alert_profile_id INTEGER NOT NULL REFERENCES alert_profiles(id) ON DELETE CASCADE,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  PRIMARY KEY (device_id, alert_profile_id)
);
`;
