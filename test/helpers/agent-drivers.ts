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
