/**
 * Power distribution unit driver: reports each outlet's state and load as a table, and offers custom
 * actions a user can run from the monitoring console: power-cycle an outlet, switch one off or on.
 * Parameter: "outlet" (the outlet number the custom actions act on, default 1).
 */

function api(method, path, onBody) {
    D.device.http[method]({ url: path, auth: 'basic', json: true }, function (error, response, body) {
        if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode >= 400) {
            console.error(method.toUpperCase() + ' ' + path + ' answered ' + response.statusCode);
            return D.failure(D.errorType.GENERIC_ERROR);
        }
        onBody(body);
    });
}

function chosenOutlet() {
    var outlet = parseInt(D.getParameter('outlet'), 10);
    return outlet > 0 ? outlet : 1;
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the PDU answers with the given credentials.
 */
function validate() {
    api('get', '/api/outlets', function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Outlets
 * @documentation Total load and a table with each outlet's name, state and load.
 */
function get_status() {
    api('get', '/api/outlets', function (body) {
        var table = D.createTable('Outlets', [
            { label: 'Name' },
            { label: 'State' },
            { label: 'Load', unit: 'A', valueType: D.valueType.NUMBER }
        ]);
        var total = 0;
        body.outlets.forEach(function (outlet) {
            total += outlet.amps;
            table.insertRecord(String(outlet.id), [outlet.name, outlet.on ? 'on' : 'off', outlet.amps]);
        });
        D.success([
            D.createVariable('total-load', 'Total load', Math.round(total * 100) / 100, 'A', D.valueType.NUMBER),
            D.createVariable('outlets-on', 'Outlets on', body.outlets.filter(function (o) { return o.on; }).length, null, D.valueType.NUMBER)
        ], table);
    });
}

/**
 * @remote_procedure
 * @label Power-cycle Outlet
 * @documentation Switches the outlet named by the "outlet" parameter off and on again.
 */
function custom_1() {
    var outlet = chosenOutlet();
    api('post', '/api/outlets/' + outlet + '/cycle', function () {
        console.info('outlet ' + outlet + ' power-cycled');
        D.success();
    });
}

/**
 * @remote_procedure
 * @label Switch Outlet Off
 * @documentation Switches the outlet named by the "outlet" parameter off.
 */
function custom_2() {
    var outlet = chosenOutlet();
    api('post', '/api/outlets/' + outlet + '/off', function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Switch Outlet On
 * @documentation Switches the outlet named by the "outlet" parameter on.
 */
function custom_3() {
    var outlet = chosenOutlet();
    api('post', '/api/outlets/' + outlet + '/on', function () { D.success(); });
}
