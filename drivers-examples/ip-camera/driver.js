/**
 * IP camera driver: reads the camera's parameter list (plain "key=value" lines, behind basic auth)
 * and reports what a monitoring user watches: model, firmware, stream settings, motion detection.
 */

function readParams(onParams) {
    D.device.http.get({ url: '/cgi-bin/params?group=Properties,Image,Motion', auth: 'basic' }, function (error, response, body) {
        if (error) {
            console.error('camera unreachable: ' + error.message);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode !== 200) return D.failure(D.errorType.GENERIC_ERROR);
        var params = {};
        body.split('\n').forEach(function (line) {
            var eq = line.indexOf('=');
            if (eq > 0) params[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
        });
        onParams(params);
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the camera answers with the given credentials.
 */
function validate() {
    readParams(function (params) {
        if (!params['Properties.Model']) return D.failure(D.errorType.PARSING_ERROR);
        D.success();
    });
}

/**
 * @remote_procedure
 * @label Get Camera Status
 * @documentation Model, firmware, resolution, frame rate and motion detection state.
 */
function get_status() {
    readParams(function (params) {
        D.success([
            D.createVariable('model', 'Model', params['Properties.Model']),
            D.createVariable('firmware', 'Firmware', params['Properties.Firmware']),
            D.createVariable('resolution', 'Resolution', params['Image.Resolution']),
            D.createVariable('fps', 'Frame rate', parseInt(params['Image.FPS'], 10), 'fps', D.valueType.NUMBER),
            D.createVariable('motion', 'Motion detection', params['Motion.Enabled'] === 'yes', null, D.valueType.BOOLEAN),
            D.createVariable('motion-events', 'Motion events today', parseInt(params['Motion.EventsToday'], 10), null, D.valueType.NUMBER)
        ]);
    });
}
