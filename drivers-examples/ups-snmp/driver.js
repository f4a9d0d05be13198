/**
 * UPS over SNMP (UPS-MIB, RFC 1628): battery status, charge and runtime, the output source and
 * load, and the input lines as a table (walked). Works with any UPS network card that speaks
 * the standard UPS-MIB; the device's SNMP settings give the community or v3 user.
 */

var UPS = '1.3.6.1.2.1.33.1.';
var OID = {
    manufacturer: UPS + '1.1.0',
    model: UPS + '1.2.0',
    batteryStatus: UPS + '2.1.0',
    secondsOnBattery: UPS + '2.2.0',
    minutesRemaining: UPS + '2.3.0',
    charge: UPS + '2.4.0',
    batteryTemperature: UPS + '2.7.0',
    outputSource: UPS + '4.1.0'
};
var INPUT_TABLE = UPS + '3.3.1'; // upsInputEntry: .2 frequency (0.1 Hz), .3 voltage (V), .4 current (0.1 A)
var OUTPUT_LOAD = UPS + '4.4.1.5'; // upsOutputPercentLoad, one per output line
var CONTACT = '1.3.6.1.2.1.1.4.0';

var BATTERY_STATUS = { 1: 'unknown', 2: 'normal', 3: 'low', 4: 'depleted' };
var OUTPUT_SOURCE = { 1: 'other', 2: 'none', 3: 'normal', 4: 'bypass', 5: 'battery', 6: 'booster', 7: 'reducer' };

function session() {
    return D.device.createSNMPSession({ timeout: 1500 });
}

/** An SNMP error ends the run: a silent agent (timeout, wrong community) is unreachable. */
function failOn(error) {
    console.error('SNMP ' + error.name + ': ' + error.message);
    D.failure(error.name === 'RequestTimedOutError' ? D.errorType.RESOURCE_UNAVAILABLE : D.errorType.GENERIC_ERROR);
}

/** The last arc(s) of each OID under `base`, with its value: { "1": …, "2": … }. */
function rowsUnder(base, walked) {
    var rows = {};
    Object.keys(walked).forEach(function (oid) {
        var rest = oid.slice(base.length + 1).split('.');
        var column = rest.shift();
        var index = rest.join('.');
        rows[index] = rows[index] || {};
        rows[index][column] = walked[oid];
    });
    return rows;
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the UPS answers UPS-MIB requests with the device's SNMP settings.
 */
function validate() {
    session().get([OID.model], function (output, error) {
        if (error) return failOn(error);
        if (output[OID.model].error) {
            console.error('no UPS-MIB on this device: ' + output[OID.model].error);
            return D.failure(D.errorType.PARSING_ERROR);
        }
        D.success();
    });
}

/**
 * @remote_procedure
 * @label Get UPS Status
 * @documentation Battery status, charge and runtime, output source and load, input lines.
 */
function get_status() {
    var names = Object.keys(OID);
    session().get(names.map(function (n) { return OID[n]; }), function (output, error) {
        if (error) return failOn(error);
        var value = {};
        names.forEach(function (n) {
            var v = output[OID[n]];
            value[n] = v && v.error ? null : v;
        });
        console.info('UPS ' + value.manufacturer + ' ' + value.model);
        session().walk(INPUT_TABLE, function (walked, walkError) {
            if (walkError) return failOn(walkError);
            var inputs = D.createTable('Input lines', [
                { label: 'Voltage', unit: 'V', valueType: D.valueType.NUMBER },
                { label: 'Frequency', unit: 'Hz', valueType: D.valueType.NUMBER },
                { label: 'Current', unit: 'A', valueType: D.valueType.NUMBER }
            ]);
            var rows = rowsUnder(INPUT_TABLE, walked);
            Object.keys(rows).forEach(function (index) {
                var row = rows[index];
                inputs.insertRecord('line-' + index, [row['3'], row['2'] / 10, row['4'] === undefined ? null : row['4'] / 10]);
            });
            session().walk(OUTPUT_LOAD, function (loads, loadError) {
                if (loadError) return failOn(loadError);
                var highest = Object.keys(loads).reduce(function (max, oid) { return Math.max(max, parseInt(loads[oid], 10)); }, 0);
                D.success([
                    D.createVariable('model', 'Model', value.model),
                    D.createVariable('battery-status', 'Battery status', BATTERY_STATUS[value.batteryStatus] || value.batteryStatus),
                    D.createVariable('charge', 'Battery charge', value.charge, '%', D.valueType.NUMBER),
                    D.createVariable('runtime', 'Runtime left', value.minutesRemaining, 'min', D.valueType.NUMBER),
                    D.createVariable('on-battery-for', 'On battery for', value.secondsOnBattery, 's', D.valueType.NUMBER),
                    D.createVariable('battery-temperature', 'Battery temperature', value.batteryTemperature, 'C', D.valueType.NUMBER),
                    D.createVariable('output-source', 'Output source', OUTPUT_SOURCE[value.outputSource] || value.outputSource),
                    D.createVariable('load', 'Output load (highest line)', highest, '%', D.valueType.NUMBER)
                ], inputs);
            });
        });
    });
}

/**
 * @remote_procedure
 * @label Set Contact
 * @documentation Writes the driver's "contact" parameter into the UPS's sysContact (needs the write community).
 */
function custom_1() {
    var contact = D.getParameter('contact');
    session().set(CONTACT, String(contact), function (output, error) {
        if (error) return failOn(error);
        console.info('sysContact is now ' + output[CONTACT]);
        D.success();
    });
}
