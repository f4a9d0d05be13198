// The HTTP bridge's errors: a request refused before it is sent (the driver's options, the
// target's bounds, a redirect not followed), with the code the driver's error gets.
export class RequestRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
