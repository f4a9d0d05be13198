/**
 * UPS status page driver: reads the HTML status page of a small UPS network card
 * (basic auth) and reports battery and load figures.
 */

function fetchStatusPage(onPage) {
    D.device.http.get({ url: '/status.html', auth: 'basic' }, function (error, response, body) {
        if (error) {
            console.error('request failed: ' + error.message);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        if (response.statusCode !== 200) return D.failure(D.errorType.GENERIC_ERROR);
        onPage(D.htmlParse(body));
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the status page answers with the given credentials.
 */
function validate() {
    fetchStatusPage(function ($) {
        if ($('#model').length === 0) return D.failure(D.errorType.PARSING_ERROR);
        D.success();
    });
}

/**
 * @remote_procedure
 * @label Get UPS Status
 * @documentation Battery charge, runtime, load and input voltage from the status page.
 */
function get_status() {
    fetchStatusPage(function ($) {
        var cell = function (id) { return $('#' + id).text().trim(); };
        console.info('UPS model ' + cell('model'));
        D.success([
            D.createVariable('model', 'Model', cell('model')),
            D.createVariable('battery', 'Battery charge', parseFloat(cell('battery')), '%', D.valueType.NUMBER),
            D.createVariable('runtime', 'Runtime left', parseInt(cell('runtime'), 10), 'min', D.valueType.NUMBER),
            D.createVariable('load', 'Output load', parseFloat(cell('load')), '%', D.valueType.NUMBER),
            D.createVariable('input-voltage', 'Input voltage', parseFloat(cell('voltage')), 'V', D.valueType.NUMBER),
            D.createVariable('on-battery', 'On battery', cell('source') === 'battery', null, D.valueType.BOOLEAN)
        ]);
    });
}
