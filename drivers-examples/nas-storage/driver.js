/**
 * NAS storage driver: logs in to the NAS's JSON API (a form POST that sets a session cookie),
 * then reports its volumes as a table plus system-wide variables. Shows the cookie jar
 * (jar: true) and D.q promises over callback requests.
 */

function openSession() {
    var deferred = D.q.defer();
    D.device.http.post({
        url: '/api/auth/login',
        form: { user: D.device.username(), passwd: D.device.password() },
        jar: true
    }, function (error, response) {
        if (error) return deferred.reject({ type: D.errorType.RESOURCE_UNAVAILABLE, message: error.message });
        if (response.statusCode === 401) return deferred.reject({ type: D.errorType.AUTHENTICATION_ERROR, message: 'login refused' });
        if (response.statusCode !== 200) return deferred.reject({ type: D.errorType.GENERIC_ERROR, message: 'login answered ' + response.statusCode });
        deferred.resolve();
    });
    return deferred.promise;
}

function getJson(path) {
    var deferred = D.q.defer();
    D.device.http.get({ url: path, jar: true }, function (error, response, body) {
        if (error) return deferred.reject({ type: D.errorType.RESOURCE_UNAVAILABLE, message: error.message });
        if (response.statusCode === 401) return deferred.reject({ type: D.errorType.AUTHENTICATION_ERROR });
        try {
            deferred.resolve(JSON.parse(body));
        } catch (e) {
            deferred.reject({ type: D.errorType.PARSING_ERROR, message: e.message });
        }
    });
    return deferred.promise;
}

function fail(reason) {
    console.error('NAS request failed: ' + (reason.message || reason.type));
    D.failure(reason.type || D.errorType.GENERIC_ERROR);
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Logs in with the given credentials and reads the system information.
 */
function validate() {
    openSession().then(function () { return getJson('/api/system'); }).then(function () { D.success(); }, fail);
}

/**
 * @remote_procedure
 * @label Get Storage Status
 * @documentation System figures and one table row per volume.
 */
function get_status() {
    var volumes = D.createTable('Volumes', [
        { label: 'Name' },
        { label: 'Used', unit: '%', valueType: D.valueType.NUMBER },
        { label: 'Free', unit: 'GB', valueType: D.valueType.NUMBER },
        { label: 'Status' }
    ]);
    openSession().then(function () {
        return D.q.all([getJson('/api/system'), getJson('/api/volumes')]);
    }).then(function (answers) {
        var system = answers[0];
        answers[1].volumes.forEach(function (volume) {
            volumes.insertRecord(volume.id, [
                volume.name,
                D.math.percent(volume.usedGb, volume.sizeGb),
                volume.sizeGb - volume.usedGb,
                volume.status
            ]);
        });
        D.success([
            D.createVariable('hostname', 'Host name', system.hostname),
            D.createVariable('firmware', 'Firmware', system.firmware),
            D.createVariable('uptime', 'Uptime', Math.round(system.uptimeSeconds / 3600), 'h', D.valueType.NUMBER),
            D.createVariable('cpu-temp', 'CPU temperature', system.cpuTempC, 'C', D.valueType.NUMBER)
        ], volumes);
    }, fail);
}

/**
 * @remote_procedure
 * @label Start Scrub
 * @documentation Asks the NAS to start a data scrub of every volume.
 */
function custom_1() {
    openSession().then(function () {
        D.device.http.post({ url: '/api/scrub', jar: true, json: {} }, function (error, response) {
            if (error || response.statusCode >= 300) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
            D.success();
        });
    }, fail);
}
