// Camera snapshots: driverbox speaks no ONVIF, so the image onvifSnapshot answers is one
// recorded for the device (by a driver, an import or a test); each one served is logged as
// camera_snapshot in the activity log, as the cloud logs the snapshots it takes.
import { addActivity } from './activity-log.js';
import { StoreError } from './store-error.js';
import type { Store } from './store.js';

export interface CameraSnapshot {
  contentType: string;
  image: Buffer;
  takenAt: number;
}

/** Records the device's latest snapshot (replacing the one before). contentType must be image/…. */
export function recordCameraSnapshot(store: Store, deviceId: number, snapshot: { contentType: string; image: Uint8Array; takenAt?: number }): void {
  if (!/^image\/[A-Za-z0-9.+-]+$/.test(snapshot.contentType)) {
    throw new StoreError('INVALID', `a snapshot's content type must be image/<subtype>, not "${snapshot.contentType}"`);
  }
  if (snapshot.image.length === 0) throw new StoreError('INVALID', 'a snapshot needs image bytes');
  store
    .statement(
      `INSERT INTO camera_snapshots (device_id, content_type, image, taken_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (device_id) DO UPDATE SET content_type = excluded.content_type, image = excluded.image, taken_at = excluded.taken_at`,
    )
    .run(deviceId, snapshot.contentType, Buffer.from(snapshot.image), snapshot.takenAt ?? store.now());
}

export function getCameraSnapshot(store: Store, deviceId: number): CameraSnapshot | undefined {
  const row = store
    .statement<[number], { content_type: string; image: Buffer; taken_at: number }>('SELECT content_type, image, taken_at FROM camera_snapshots WHERE device_id = ?')
    .get(deviceId);
  return row ? { contentType: row.content_type, image: row.image, takenAt: row.taken_at } : undefined;
}

/** The device's snapshot, logged as taken by user; undefined when none was recorded. */
export function takeCameraSnapshot(
  store: Store,
  device: { agentId: number; id: number; displayName: string },
  user: string,
): CameraSnapshot | undefined {
  return store.transaction(() => {
    const snapshot = getCameraSnapshot(store, device.id);
    if (!snapshot) return undefined;
    addActivity(store, {
      agentId: device.agentId,
      deviceId: device.id,
      type: 'camera_snapshot',
      user,
      description: `camera snapshot of device "${device.displayName}" (${snapshot.image.length} bytes, ${snapshot.contentType}; the recorded one)`,
      details: { content_type: snapshot.contentType, bytes: snapshot.image.length },
    });
    return snapshot;
  });
}
