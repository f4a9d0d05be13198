// Placeholder: the connections operations are being built.
export const connectionOperations = {};
