// Schema v7, for the scale-out mode (and harmless in the embedded one):
// - runs.slot_ms: the scheduled slot a run was for. With UNIQUE (association_id, slot_ms) the first
//   result for a slot wins and a second is refused (SCALE-OUT.md 4.2, the write rule); runs
//   outside a schedule have no slot, and NULLs never collide.
// - runs.runner: which agent process ran it.
// - device_state: what a device's runs keep between runs (cookie jars), loaded at a run's start
//   and saved at its end when any agent may run the device next.
export const scaleOutSchema = `
ALTER TABLE runs ADD COLUMN slot_ms INTEGER;
ALTER TABLE runs ADD COLUMN runner TEXT;
CREATE UNIQUE INDEX runs_by_slot ON runs(association_id, slot_ms);

CREATE TABLE device_state (
  device_id INTEGER PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,
  state TEXT NOT NULL, -- JSON, as host/device-state.ts writes it
  update_time INTEGER NOT NULL
);
`;
