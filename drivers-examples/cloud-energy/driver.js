/**
 * Cloud energy driver: a solar inverter that reports only to its vendor's cloud. The driver reaches
 * the cloud API with D.createExternalDevice and the driver parameters (API host, site id, API key),
 * and reports the site's current production and today's energy.
 * Parameters: "apiHost" (default "api.solar-cloud.example"), "siteId", "apiKey".
 */

function cloud() {
    return D.createExternalDevice(D.getParameter('apiHost') || 'api.solar-cloud.example');
}

function readSite(onSite) {
    var siteId = D.getParameter('siteId');
    var apiKey = D.getParameter('apiKey');
    if (!siteId || !apiKey) {
        console.error('the "siteId" and "apiKey" parameters are required');
        return D.failure(D.errorType.MISSING_DEVICE_ERROR);
    }
    cloud().http.get({
        url: '/v1/sites/' + encodeURIComponent(siteId) + '/overview?api_key=' + encodeURIComponent(apiKey),
        protocol: 'https',
        json: true
    }, function (error, response, body) {
        if (error) {
            console.error('cloud API unreachable: ' + error.message);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        if (response.statusCode === 401 || response.statusCode === 403) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode !== 200 || !body || !body.overview) return D.failure(D.errorType.PARSING_ERROR);
        onSite(body.overview);
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the cloud API knows the site and accepts the API key.
 */
function validate() {
    readSite(function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Production
 * @documentation Current power, today's energy, lifetime energy and the last time the site reported.
 */
function get_status() {
    readSite(function (overview) {
        D.success([
            D.createVariable('power', 'Current power', overview.currentPowerW, 'W', D.valueType.NUMBER),
            D.createVariable('energy-today', 'Energy today', overview.todayWh / 1000, 'kWh', D.valueType.NUMBER),
            D.createVariable('energy-lifetime', 'Lifetime energy', Math.round(overview.lifetimeWh / 1000), 'kWh', D.valueType.NUMBER),
            D.createVariable('last-update', 'Last report', overview.lastUpdate)
        ]);
    });
}
