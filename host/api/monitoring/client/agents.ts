// Placeholder: the agents operations are being built.
export const agentOperations = {};
