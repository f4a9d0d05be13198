// What a device's runs keep between runs (cookie jars, host/device-state.ts), in the store, so
// that in scale-out mode whichever agent runs a device's next slot starts from what the last
// run left. Sealed with the store's secret box like credentials: it holds live session cookies.
// A save merges into what is kept under a lock on the row (FOR UPDATE on PostgreSQL; SQLite's
// transactions are serial), so two agents saving one device at once keep each other's sessions.
import { mergeDeviceState, readDeviceState } from '../../device-state.js';
import { type DeviceStateSnapshot, type DeviceStateStore } from '../../contract/device-state.js';
import type { Store } from '../store.js';

export class StoreDeviceStates implements DeviceStateStore {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async load(deviceId: number): Promise<DeviceStateSnapshot | null> {
    const row = await this.#store.statement<[number], { state: string }>('SELECT state FROM device_state WHERE device_id = ?').get(deviceId);
    return row ? this.#open(row.state) : null;
  }

  /**
   * These states with one device's kept state read already, sealed (readRunDevice joins it to the
   * device's row): its load opens that instead of reading it again; its save is this one's.
   */
  preloaded(sealed: string | null): DeviceStateStore {
    return {
      load: async () => (sealed === null ? null : this.#open(sealed)),
      save: (deviceId, state) => this.save(deviceId, state),
    };
  }

  #open(sealed: string): DeviceStateSnapshot {
    return readDeviceState(JSON.parse(this.#store.secrets.decrypt(sealed)), 'stored device state');
  }

  async save(deviceId: number, state: DeviceStateSnapshot): Promise<void> {
    const store = this.#store;
    const update = readDeviceState(state, 'device state');
    const lock = store.dialect === 'postgres' ? ' FOR UPDATE' : '';
    await store.transaction(async () => {
      const row = await store.statement<[number], { state: string }>(`SELECT state FROM device_state WHERE device_id = ?${lock}`).get(deviceId);
      const kept = row ? this.#open(row.state) : null;
      const merged = mergeDeviceState(kept, update);
      if (merged.sessions.length === 0) {
        await store.statement('DELETE FROM device_state WHERE device_id = ?').run(deviceId);
        return;
      }
      await store
        .statement(
          `INSERT INTO device_state (device_id, state, update_time) VALUES (?, ?, ?)
           ON CONFLICT (device_id) DO UPDATE SET state = excluded.state, update_time = excluded.update_time`,
        )
        .run(deviceId, store.secrets.encrypt(JSON.stringify(merged)), store.now());
    });
  }
}
