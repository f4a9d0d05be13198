/**
 * AV receiver driver: asks the receiver for its main zone status as XML (an XML POST, as
 * such receivers' control APIs work) and reports power, input, volume and mute.
 */

var STATUS_REQUEST = '<?xml version="1.0" encoding="utf-8"?><Request cmd="GET"><Main_Zone><Basic_Status>GetParam</Basic_Status></Main_Zone></Request>';

function readStatus(onStatus) {
    D.device.http.post({
        url: '/control/xml',
        headers: { 'Content-Type': 'text/xml; charset=utf-8' },
        body: STATUS_REQUEST
    }, function (error, response, body) {
        if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        if (response.statusCode !== 200) return D.failure(D.errorType.GENERIC_ERROR);
        var $ = D.htmlParse(body, { xml: true });
        if ($('Basic_Status').length === 0) return D.failure(D.errorType.PARSING_ERROR);
        onStatus($);
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the receiver answers its XML control API.
 */
function validate() {
    readStatus(function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Receiver Status
 * @documentation Power, input, volume (dB) and mute of the main zone.
 */
function get_status() {
    readStatus(function ($) {
        // Volume comes as an integer and an exponent: Val=-345, Exp=1 means -34.5 dB.
        var volume = parseInt($('Volume Lvl Val').text(), 10) / Math.pow(10, parseInt($('Volume Lvl Exp').text(), 10));
        D.success([
            D.createVariable('power', 'Power', $('Power_Control Power').text()),
            D.createVariable('input', 'Input', $('Input Input_Sel').text()),
            D.createVariable('volume', 'Volume', volume, 'dB', D.valueType.NUMBER),
            D.createVariable('mute', 'Muted', $('Volume Mute').text() === 'On', null, D.valueType.BOOLEAN)
        ]);
    });
}
