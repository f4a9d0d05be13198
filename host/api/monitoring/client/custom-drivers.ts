// Placeholder: the custom-drivers operations are being built.
export const customDriverOperations = {};
