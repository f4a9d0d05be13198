// Schema v5, the device additions of reference 1.14.0: a device's monitoring state and exclusion,
// the power outlets of PDU devices, device profiles, and why an association was disabled.
export const deviceAdditionsSchema = `
-- MANAGED devices are monitored and listed; UNMANAGED ones (per-device licensing) leave the device
-- list and the agent runs no driver on them. An excluded device (the collector's device blacklist)
-- stays listed (is_excluded) unless show_excluded=false, and is not monitored either.
ALTER TABLE devices ADD COLUMN monitoring_state TEXT NOT NULL DEFAULT 'MANAGED' CHECK (monitoring_state IN ('MANAGED', 'UNMANAGED'));
ALTER TABLE devices ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;

-- Why a DISABLED association is disabled: NULL when the inventory says so (enabled: false),
-- FAILURE (recoverable) or UNRECOVERABLE (e.g. missing credentials) when the system disabled it.
-- reEnableCustomDriverAssociations re-enables the system's, never the inventory's.
ALTER TABLE custom_driver_associations ADD COLUMN disabled_reason TEXT CHECK (disabled_reason IN ('FAILURE', 'UNRECOVERABLE'));

-- The outlets of a power distribution device, as discovered (defineDeviceOutlets); custom_name
-- and power are what the API set since. outlet_id is the device's own name for it.
CREATE TABLE device_outlets (
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  outlet_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  custom_name TEXT,
  power TEXT NOT NULL DEFAULT 'unknown' CHECK (power IN ('ON', 'OFF', 'unknown')),
  can_write INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (device_id, outlet_id)
);

-- Devices powered by an outlet (links); a device of the same agent.
CREATE TABLE device_outlet_links (
  device_id INTEGER NOT NULL,
  outlet_id TEXT NOT NULL,
  attached_device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  PRIMARY KEY (device_id, outlet_id, attached_device_id),
  FOREIGN KEY (device_id, outlet_id) REFERENCES device_outlets(device_id, outlet_id) ON DELETE CASCADE
);

-- Every outlet action asked for (none drives real hardware).
CREATE TABLE device_outlet_actions (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  outlet_id TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('on', 'off', 'cycle')),
  user TEXT NOT NULL,
  timestamp INTEGER NOT NULL
);
CREATE INDEX device_outlet_actions_by_device ON device_outlet_actions(device_id);

-- Device profiles (the account's catalogue) with their modules (JSON array of
-- {id, module_type, apply_mode, is_active, creation_time, last_modified}).
CREATE TABLE device_profiles (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  creation_time INTEGER NOT NULL,
  last_modified INTEGER NOT NULL,
  modified_by_id INTEGER,
  modified_by_name TEXT,
  modules TEXT NOT NULL DEFAULT '[]'
);

-- The profile last applied to each device, and when and by whom.
CREATE TABLE device_profile_applications (
  device_id INTEGER PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,
  profile_id INTEGER NOT NULL REFERENCES device_profiles(id) ON DELETE CASCADE,
  user TEXT NOT NULL,
  timestamp INTEGER NOT NULL
);
`;
