// Camera snapshots: driverbox speaks no ONVIF, so the image onvifSnapshot answers is one
// recorded for the device (by a driver, an import or a test). As the cloud does, each one served
// is a device connection whose bytes count against the agent's connection consumption (refused
// when it is used up) and a camera_snapshot entry of the activity log.
import { addActivity } from '../fleet/activity-log.js';
import { addConnectionBytes, createDeviceConnection } from './connections.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export interface CameraSnapshot {
  contentType: string;
  image: Buffer;
  takenAt: number;
}

/** Records the device's latest snapshot (replacing the one before). contentType must be image/…. */
export async function recordCameraSnapshot(store: Store, deviceId: number, snapshot: { contentType: string; image: Uint8Array; takenAt?: number }): Promise<void> {
  if (!/^image\/[A-Za-z0-9.+-]+$/.test(snapshot.contentType)) {
    throw new StoreError('INVALID', `a snapshot's content type must be image/<subtype>, not "${snapshot.contentType}"`);
  }
  if (snapshot.image.length === 0) throw new StoreError('INVALID', 'a snapshot needs image bytes');
  await store
    .statement(
      `INSERT INTO camera_snapshots (device_id, content_type, image, taken_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (device_id) DO UPDATE SET content_type = excluded.content_type, image = excluded.image, taken_at = excluded.taken_at`,
    )
    .run(deviceId, snapshot.contentType, Buffer.from(snapshot.image), snapshot.takenAt ?? store.now());
}

export async function getCameraSnapshot(store: Store, deviceId: number): Promise<CameraSnapshot | undefined> {
  const row = await store
    .statement<[number], { content_type: string; image: Buffer; taken_at: number }>('SELECT content_type, image, taken_at FROM camera_snapshots WHERE device_id = ?')
    .get(deviceId);
  return row ? { contentType: row.content_type, image: row.image, takenAt: row.taken_at } : undefined;
}

/**
 * The device's snapshot, taken for user from callerIp; undefined when none was recorded.
 * CONFLICT when the agent's connection consumption is used up.
 */
export async function takeCameraSnapshot(
  store: Store,
  device: { agentId: number; id: number; displayName: string },
  caller: { user: string; ip: string },
): Promise<CameraSnapshot | undefined> {
  const { user } = caller;
  return await store.transaction(async () => {
    const snapshot = await getCameraSnapshot(store, device.id);
    if (!snapshot) return undefined;
    // A connection that ends as it starts (ttl 0), on ONVIF's HTTP port.
    const connection = await createDeviceConnection(store, device.agentId, device.id, { user, allowedIp: caller.ip, port: 80, protocol: 'onvif', link: '', ttlHours: 0 });
    await addConnectionBytes(store, 'device', connection.id, snapshot.image.length);
    await addActivity(store, {
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
