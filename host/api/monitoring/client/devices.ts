// Placeholder: the devices operations are being built.
export const deviceOperations = {};
