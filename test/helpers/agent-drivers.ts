// Drivers the agent tests schedule, against the device server of helpers/device-server.ts.

/** Reads /status?body=ok and reports it as the variable `reply`. */
export const REPLY_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status?body=ok' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('reply', 'Reply', body)]);
  });
}`;

/** Reads /mode and reports it as `mode`; spins until its CPU or time limit when the device answers "spin". */
export const MODE_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/mode' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    if (body === 'spin') for (;;) {}
    D.success([D.createVariable('mode', 'Mode', body)]);
  });
}`;
