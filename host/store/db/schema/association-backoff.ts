// Schema v8: an association's backoff after repeated limit hits (host/agent/association-backoff.ts).
// limit_hits counts its consecutive runs that hit a limit (timeout, cpu, memory); once they reach
// the agent's threshold, backoff_until (epoch ms) is when its next run may come. A row exists
// only while the association has hits; a success deletes it. Kept here so a restart keeps it.
export const associationBackoffSchema = `
CREATE TABLE association_backoff (
  association_id INTEGER PRIMARY KEY REFERENCES custom_driver_associations(id) ON DELETE CASCADE,
  limit_hits INTEGER NOT NULL,
  last_limit TEXT NOT NULL,
  backoff_until INTEGER,
  update_time INTEGER NOT NULL
);
`;
