// Placeholder: the activity-log operations are being built.
export const activityLogOperations = {};
