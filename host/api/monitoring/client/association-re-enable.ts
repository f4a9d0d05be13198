// reEnableCustomDriverAssociations of MonitoringClient (1.14.0).
import type { ClientCore } from './core.js';

export const associationReEnableOperations = {
  /** Re-enables the associations disabled by failure; include_unrecoverable: also those that cannot recover. */
  reEnableCustomDriverAssociations(this: ClientCore, query?: { include_unrecoverable?: boolean }): Promise<void> {
    return this.call('reEnableCustomDriverAssociations', 'POST', '/custom-driver/association/re-enable', { query: { ...query } });
  },
};
