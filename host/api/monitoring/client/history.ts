// Placeholder: the history operations are being built.
export const historyOperations = {};
