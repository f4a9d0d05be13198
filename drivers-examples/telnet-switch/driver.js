/**
 * An old access switch managed over Telnet: logs in with the device's credentials, reads
 * "show interfaces status" into a table of ports and "show version" for the firmware and uptime.
 * One Telnet session per command, as the platform's sendTelnetCommand opens it.
 */

var telnetOptions = {
    loginPrompt: 'Username:',
    passwordPrompt: 'Password:',
    shellPrompt: /SW-\d+#\s*$/,
    timeout: 1000
};

var ports = D.createTable('Ports', [
    { label: 'Description' },
    { label: 'Status' },
    { label: 'Speed', unit: 'Mb/s', valueType: D.valueType.NUMBER }
]);

/** Runs one command; onOutput gets the lines between the echoed command and the next prompt. */
function run(command, onOutput) {
    telnetOptions.command = command;
    D.device.sendTelnetCommand(telnetOptions, function (out, err) {
        if (err) {
            console.error(err.message);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        if (out.indexOf('Login incorrect') !== -1) return D.failure(D.errorType.AUTHENTICATION_ERROR);
        var start = out.indexOf(command + '\r\n');
        if (start === -1) return D.failure(D.errorType.GENERIC_ERROR);
        var body = out.slice(start + command.length + 2);
        onOutput(body.split('\r\n').slice(0, -1));
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Logs in and reads the firmware version.
 */
function validate() {
    run('show version', function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Device Variables
 * @documentation Reads the ports table and the firmware version and uptime.
 */
function get_status() {
    run('show interfaces status', function (lines) {
        lines.forEach(function (line) {
            var match = line.match(/^(\d+)\s+(.*?)\s+(up|down)\s+(\d+|-)\s*$/);
            if (match) ports.insertRecord(match[1], [match[2], match[3], match[4] === '-' ? 0 : Number(match[4])]);
        });
        run('show version', function (version) {
            var text = version.join('\n');
            var firmware = (text.match(/Firmware:\s*(\S+)/) || [])[1];
            var uptime = (text.match(/Uptime:\s*(\d+) days/) || [])[1];
            D.success([
                D.createVariable('firmware', 'Firmware', firmware),
                D.createVariable('uptime', 'Uptime', Number(uptime), 'days', D.valueType.NUMBER)
            ], ports);
        });
    });
}
