// Schema v3, configuration backups (configuration management): each device's history of
// running / startup configurations, from backup() runs and from the API's createDeviceConfiguration.
export const configurationsSchema = `
-- One row per distinct configuration: a backup identical (same running and startup MD5) to the
-- device's latest only moves last_backup forward. timestamp is in ms, whole seconds and strictly
-- increasing per device, so the API's second-resolution timestamps name one entry each.
-- running / startup are stored with the device's secrets masked, and the MD5s are of that text.
CREATE TABLE device_configurations (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  last_backup INTEGER NOT NULL,
  label TEXT NOT NULL,
  running TEXT NOT NULL,
  startup TEXT,
  running_md5 TEXT NOT NULL,
  startup_md5 TEXT,
  -- The run that made it (NULL when it came through the API, or its run record was pruned).
  run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  source TEXT NOT NULL CHECK (source IN ('driver', 'api'))
);
CREATE UNIQUE INDEX device_configurations_by_time ON device_configurations(device_id, timestamp);
CREATE INDEX device_configurations_by_run ON device_configurations(run_id);
`;
