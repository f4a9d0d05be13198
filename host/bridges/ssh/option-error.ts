/** An option the driver got wrong: answered as INVALID_OPTIONS through its callback, nothing sent. */
export class SshOptionError extends Error {}
