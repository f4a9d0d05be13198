// Placeholder: the variables operations are being built.
export const variableOperations = {};
