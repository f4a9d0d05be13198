// Schema v1, run results: variables (device and agent), their history, tables, the record of
// every run, and the activity log.
export const resultsSchema = `
-- device_id NULL: an agent variable. metric: the platform metric an agent variable measures;
-- NULL for driver variables (their D.valueType is kept in value_type). association_id: the custom driver association whose
-- runs wrote it (deleted with the association); NULL for runs reported outside one.
CREATE TABLE variables (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  device_id INTEGER REFERENCES devices(id) ON DELETE CASCADE,
  association_id INTEGER REFERENCES custom_driver_associations(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  label TEXT,
  unit TEXT,
  value TEXT,
  previous_value TEXT,
  value_type TEXT,
  metric TEXT,
  has_history INTEGER NOT NULL DEFAULT 1,
  creation_time INTEGER NOT NULL,
  value_update_time INTEGER
);
CREATE UNIQUE INDEX variables_device_path ON variables(device_id, path) WHERE device_id IS NOT NULL;
CREATE UNIQUE INDEX variables_agent_path ON variables(agent_id, path) WHERE device_id IS NULL;
-- Agent-wide lists are paged in id order (the default sort) and filtered or sorted by path:
-- these indexes let a page be read in order instead of sorting every variable of the agent
-- (10,000 devices × 50 variables: page 0 from 28 ms to 0.4 ms, a path filter from 44 to 0.3 ms).
-- Sorting by value, label or a time sorts the agent's variables (~60 ms at 500,000): an index
-- on value would cost every run's write ~30%, and values change on every write.
CREATE INDEX variables_by_agent_id ON variables(agent_id, id, device_id);
CREATE INDEX variables_by_agent_device ON variables(agent_id, device_id, id);
CREATE INDEX variables_by_agent_path ON variables(agent_id, path, id);
CREATE INDEX variables_by_association ON variables(association_id);

CREATE TABLE variable_history (
  variable_id INTEGER NOT NULL REFERENCES variables(id) ON DELETE CASCADE,
  timestamp INTEGER NOT NULL,
  value TEXT
);
CREATE INDEX variable_history_by_time ON variable_history(variable_id, timestamp);

CREATE TABLE device_tables (
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  association_id INTEGER REFERENCES custom_driver_associations(id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  columns TEXT NOT NULL, -- JSON [{label, unit, valueType}]
  rows TEXT NOT NULL,    -- JSON [[recordId, ...values]]
  update_time INTEGER NOT NULL
);
CREATE UNIQUE INDEX device_tables_by_label ON device_tables(device_id, ifnull(association_id, 0), label);

-- Every reported run, failed ones too, with its logs: nothing a run said is lost.
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  device_id INTEGER REFERENCES devices(id) ON DELETE CASCADE,
  custom_driver_id INTEGER REFERENCES custom_drivers(id) ON DELETE SET NULL,
  association_id INTEGER REFERENCES custom_driver_associations(id) ON DELETE SET NULL,
  driver_name TEXT,
  action TEXT NOT NULL,
  started INTEGER NOT NULL,
  elapsed_ms INTEGER NOT NULL,
  outcome TEXT NOT NULL, -- success | failure
  error_type TEXT,
  error_message TEXT,
  limit_exceeded TEXT,    -- timeout | cpu | memory
  log TEXT NOT NULL,      -- JSON [LogMessage]
  warnings TEXT NOT NULL, -- JSON [string]
  http TEXT NOT NULL DEFAULT '[]', -- JSON [HttpExchange], secrets already redacted by the bridge
  variable_count INTEGER NOT NULL,
  table_count INTEGER NOT NULL
);
CREATE INDEX runs_by_device ON runs(device_id, started);

CREATE TABLE activity_log (
  id INTEGER PRIMARY KEY,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  device_id INTEGER,
  timestamp INTEGER NOT NULL,
  type TEXT NOT NULL,
  user TEXT NOT NULL,
  description TEXT NOT NULL,
  details TEXT -- JSON
);
CREATE INDEX activity_log_by_time ON activity_log(agent_id, timestamp);
`;
