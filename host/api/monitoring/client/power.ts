// Placeholder: the power operations are being built.
export const powerOperations = {};
