/**
 * Router configuration backup driver: the router's web API exports its running and startup
 * configurations as text (GET /api/config/export?type=running|startup, basic auth with the
 * device credentials). backup() stores both with D.createBackup; get_status reports the model,
 * firmware and uptime, so the same driver also monitors the router.
 */

function request(url, onBody) {
    D.device.http.get({ url: url, auth: 'basic' }, function (error, response, body) {
        if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        if (response.statusCode === 401 || response.statusCode === 403) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode !== 200) return D.failure(D.errorType.GENERIC_ERROR);
        onBody(body);
    });
}

function readSystem(onSystem) {
    request('/api/system', function (body) {
        try {
            onSystem(JSON.parse(body));
        } catch (e) {
            D.failure(D.errorType.PARSING_ERROR);
        }
    });
}

function exportConfiguration(type, onText) {
    request('/api/config/export?type=' + type, function (body) {
        if (typeof body !== 'string' || body.indexOf('hostname') < 0) return D.failure(D.errorType.PARSING_ERROR);
        onText(body);
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Reads the router's system information with the device credentials.
 */
function validate() {
    readSystem(function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Router Status
 * @documentation Model, firmware and uptime.
 */
function get_status() {
    readSystem(function (system) {
        D.success([
            D.createVariable('model', 'Model', system.model),
            D.createVariable('firmware', 'Firmware', system.firmware),
            D.createVariable('uptime', 'Uptime', Math.floor(system.uptimeSeconds / 3600), 'h', D.valueType.NUMBER)
        ]);
    });
}

/**
 * @remote_procedure
 * @label Backup Configuration
 * @documentation Exports the running and startup configurations and stores them as a backup.
 */
function backup() {
    exportConfiguration('running', function (running) {
        exportConfiguration('startup', function (startup) {
            D.success(D.createBackup({ label: 'edge-r1 configuration', running: running, startup: startup }));
        });
    });
}
