/**
 * {{name}}: a driver for a device with a JSON status API behind basic auth.
 * Edit the paths and fields to your device's, then run it against the simulated device:
 *   npx driverbox simulate {{name}}/device.json      (prints the `driverbox run` line to use)
 *   npx vitest run {{name}}                          (runs driver.test.mjs)
 */

/** GET a JSON document from the device; a failed request ends the run with the right error type. */
function getJson(path, onBody) {
    D.device.http.get({ url: path, auth: 'basic', json: true }, function (error, response, body) {
        if (error) {
            console.error('request failed: ' + error.code + ' ' + error.message);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        if (response.statusCode === 401 || response.statusCode === 403) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode !== 200 || !body) return D.failure(D.errorType.GENERIC_ERROR);
        onBody(body);
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the device answers its status API with the given credentials.
 */
function validate() {
    getJson('/api/status', function (status) {
        if (!status.model) return D.failure(D.errorType.PARSING_ERROR);
        D.success();
    });
}

/**
 * @remote_procedure
 * @label Get Status
 * @documentation Model, firmware, uptime and temperature, and a table of the network interfaces.
 */
function get_status() {
    getJson('/api/status', function (status) {
        var interfaces = D.createTable('Interfaces', [
            { label: 'Status' },
            { label: 'Speed', unit: 'Mbps', valueType: D.valueType.NUMBER },
            { label: 'Received', unit: 'MB', valueType: D.valueType.NUMBER }
        ]);
        status.interfaces.forEach(function (nic) {
            interfaces.insertRecord(nic.name, [nic.up ? 'up' : 'down', nic.speedMbps, Math.round(nic.rxBytes / 1e6)]);
        });
        D.success([
            D.createVariable('model', 'Model', status.model),
            D.createVariable('firmware', 'Firmware', status.firmware),
            D.createVariable('uptime', 'Uptime', Math.round(status.uptimeSeconds / 3600), 'h', D.valueType.NUMBER),
            D.createVariable('temperature', 'Temperature', status.temperatureC, 'C', D.valueType.NUMBER)
        ], interfaces);
    });
}

/**
 * @remote_procedure
 * @label Reboot
 * @documentation Asks the device to reboot.
 */
function custom_1() {
    D.device.http.post({ url: '/api/reboot', auth: 'basic', json: {} }, function (error, response) {
        if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        if (response.statusCode !== 202) return D.failure(D.errorType.GENERIC_ERROR);
        console.info('reboot requested');
        D.success();
    });
}
