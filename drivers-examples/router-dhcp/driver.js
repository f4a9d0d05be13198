/**
 * Router DHCP leases driver: logs in to the router's web API with the device credentials (a JSON POST
 * that answers a token), then reads the DHCP lease list and reports it as a table, one row per client.
 */

function loginForToken(onToken) {
    D.device.http.post({
        url: '/api/login',
        json: { username: D.device.username(), password: D.device.password() }
    }, function (error, response, body) {
        if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        if (response.statusCode === 401 || response.statusCode === 403) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode !== 200 || !body || !body.token) return D.failure(D.errorType.GENERIC_ERROR);
        onToken(body.token);
    });
}

function readLeases(onLeases) {
    loginForToken(function (token) {
        D.device.http.get({ url: '/api/dhcp/leases', headers: { 'X-Auth-Token': token }, json: true }, function (error, response, body) {
            if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
            if (response.statusCode !== 200 || !body || !Array.isArray(body.leases)) return D.failure(D.errorType.PARSING_ERROR);
            onLeases(body.leases);
        });
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Logs in to the router with the given credentials.
 */
function validate() {
    loginForToken(function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get DHCP Leases
 * @documentation The lease count and a table of leases: MAC, IP, host name, minutes left.
 */
function get_status() {
    readLeases(function (leases) {
        var table = D.createTable('DHCP leases', [
            { label: 'IP address' },
            { label: 'Host name' },
            { label: 'Expires in', unit: 'min', valueType: D.valueType.NUMBER },
            { label: 'Static' }
        ]);
        leases.forEach(function (lease) {
            table.insertRecord(lease.mac, [lease.ip, lease.hostname || '', Math.round(lease.expiresInSeconds / 60), lease.static ? 'yes' : 'no']);
        });
        D.success([D.createVariable('lease-count', 'Leases', leases.length, null, D.valueType.NUMBER)], table);
    });
}
