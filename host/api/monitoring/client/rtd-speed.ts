// Placeholder: the rtd-speed operations are being built.
export const rtdSpeedOperations = {};
