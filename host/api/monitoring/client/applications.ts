// Placeholder: the applications operations are being built.
export const applicationOperations = {};
