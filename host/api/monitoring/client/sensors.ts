// Placeholder: the sensors operations are being built.
export const sensorOperations = {};
