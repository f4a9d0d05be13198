/**
 * Network switch over an SSH shell sequence (D.device.sendSSHCommands): the CLI's prompt ends
 * each command's output; "show version" gives the model, software and serial, and
 * "show interfaces status" (a column table) becomes a table of ports. Each output comes
 * back raw: the echoed command first, the prompt last.
 */

var PROMPT = '#';

function runCommands(commands) {
    var deferred = D.q.defer();
    D.device.sendSSHCommands({
        commands: commands,
        prompt: PROMPT,
        error_prompt: '% Invalid input',
        inter_command_timeout_ms: 500,
        global_timeout_ms: 20000
    }, function (outputs, error) {
        if (error) return deferred.reject(error);
        deferred.resolve(outputs.map(body));
    });
    return deferred.promise;
}

/** One output without its echoed command line and the trailing prompt, as lines. */
function body(output) {
    var lines = output.split(/\r?\n/);
    return lines.slice(1, -1);
}

function fail(error) {
    console.error('SSH shell sequence failed: ' + error.message);
    // A shell sequence's errors carry no code: tell them apart by their message.
    if (/authentication methods failed/.test(error.message)) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    if (error.message === 'timeout') return D.failure(D.errorType.TIMEOUT_ERROR);
    if (error.command) return D.failure(D.errorType.PARSING_ERROR);
    D.failure(D.errorType.RESOURCE_UNAVAILABLE);
}

/** "Key : value" lines and the IOS banner line of `show version`. */
function parseVersion(lines) {
    var info = {};
    lines.forEach(function (line) {
        var software = /Version ([^,\s]+)/.exec(line);
        if (software && !info.version) info.version = software[1];
        var uptime = /uptime is (.+)$/.exec(line);
        if (uptime) info.uptime = uptime[1].trim();
        var pair = /^([^:]+?)\s+:\s+(.+)$/.exec(line);
        if (pair) info[pair[1].trim().toLowerCase()] = pair[2].trim();
    });
    return info;
}

/**
 * `show interfaces status`: Port, Name and Status sit under their headers (a name may hold
 * spaces); Vlan, Duplex, Speed and Type are right-aligned, so they are split on spaces.
 */
function parseInterfaces(lines) {
    var header = lines[0];
    var nameAt = header.indexOf('Name');
    var statusAt = header.indexOf('Status');
    var vlanAt = header.indexOf('Vlan');
    return lines.slice(1).filter(function (line) { return line.trim() !== ''; }).map(function (line) {
        var rest = line.substring(vlanAt).trim().split(/\s+/);
        return {
            port: line.substring(0, nameAt).trim(),
            name: line.substring(nameAt, statusAt).trim(),
            status: line.substring(statusAt, vlanAt).trim(),
            vlan: rest[0],
            duplex: rest[1],
            speed: rest[2]
        };
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Logs in and reads the software version.
 */
function validate() {
    runCommands(['show version']).then(function () { D.success(); }, fail);
}

/**
 * @remote_procedure
 * @label Get Status
 * @documentation Model, software, serial, uptime and one row per port.
 */
function get_status() {
    var ports = D.createTable('Ports', [
        { label: 'Name' },
        { label: 'Status' },
        { label: 'VLAN' },
        { label: 'Duplex' },
        { label: 'Speed' }
    ]);
    runCommands(['terminal length 0', 'show version', 'show interfaces status']).then(function (out) {
        var version = parseVersion(out[1]);
        var rows = parseInterfaces(out[2]);
        rows.forEach(function (row) {
            ports.insertRecord(row.port, [row.name, row.status, row.vlan, row.duplex, row.speed]);
        });
        var connected = rows.filter(function (row) { return row.status === 'connected'; }).length;
        D.success([
            D.createVariable('model', 'Model', version['model number']),
            D.createVariable('software', 'Software version', version.version),
            D.createVariable('serial', 'Serial number', version['system serial number']),
            D.createVariable('uptime', 'Uptime', version.uptime),
            D.createVariable('ports-connected', 'Ports connected', connected, null, D.valueType.NUMBER),
            D.createVariable('ports-errdisabled', 'Ports err-disabled', rows.length - connected - rows.filter(function (r) { return r.status === 'notconnect'; }).length, null, D.valueType.NUMBER)
        ], ports);
    }, fail).catch(function (e) {
        console.error('could not read the output: ' + e.message);
        D.failure(D.errorType.PARSING_ERROR);
    });
}
