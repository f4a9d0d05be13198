// Schema v1, custom drivers: the library of driver scripts, their parameters, and their
// associations with devices.
export const driversSchema = `
CREATE TABLE custom_drivers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT,
  version INTEGER NOT NULL DEFAULT 1,
  source TEXT NOT NULL,
  type TEXT NOT NULL DEFAULT 'GENERIC',
  minimal_sample_period INTEGER NOT NULL DEFAULT 300,
  requires_credentials INTEGER NOT NULL DEFAULT 1,
  -- the code inspection of the current version: { actions, errors, code_inspection }
  inspection TEXT NOT NULL,
  creation_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL
);

CREATE TABLE custom_driver_parameters (
  id INTEGER PRIMARY KEY,
  custom_driver_id INTEGER NOT NULL REFERENCES custom_drivers(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  description TEXT,
  value_type TEXT NOT NULL CHECK (value_type IN ('STRING', 'NUMBER', 'LIST', 'SECRET_TEXT')),
  default_value TEXT, -- JSON
  UNIQUE (custom_driver_id, name)
);

CREATE TABLE custom_driver_associations (
  id INTEGER PRIMARY KEY,
  custom_driver_id INTEGER NOT NULL REFERENCES custom_drivers(id) ON DELETE CASCADE,
  agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  device_id INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
  sample_period INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'ENABLED' CHECK (status IN ('ENABLED', 'DISABLED')),
  creation_time INTEGER NOT NULL,
  last_inspection_time INTEGER NOT NULL,
  UNIQUE (custom_driver_id, device_id)
);
CREATE INDEX associations_by_agent ON custom_driver_associations(agent_id);

CREATE TABLE custom_driver_association_parameters (
  association_id INTEGER NOT NULL REFERENCES custom_driver_associations(id) ON DELETE CASCADE,
  parameter_id INTEGER NOT NULL REFERENCES custom_driver_parameters(id) ON DELETE CASCADE,
  value TEXT, -- JSON
  PRIMARY KEY (association_id, parameter_id)
);
`;
