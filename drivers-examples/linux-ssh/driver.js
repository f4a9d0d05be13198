/**
 * Linux host over SSH: uptime, load, memory and a table of file systems, each read with one
 * command (D.device.sendSSHCommand). The credentials are the device's; errors are told apart
 * as the collector reports them: code 5 = wrong credentials, 255 = no SSH on the device, no
 * code = the command outlasted its timeout, any other code = the command's exit status.
 */

function ssh(command) {
    var deferred = D.q.defer();
    D.device.sendSSHCommand({ command: command, timeout: 10000 }, function (output, error) {
        if (error) return deferred.reject(error);
        deferred.resolve(output);
    });
    return deferred.promise;
}

function fail(error) {
    console.error('SSH command failed: ' + error.message);
    if (error.code === 5) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    if (error.code === 255) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (error.code === undefined) return D.failure(D.errorType.TIMEOUT_ERROR);
    D.failure(D.errorType.GENERIC_ERROR);
}

/** `free -b`: the "Mem:" line's total, used and available bytes. */
function parseMemory(text) {
    var mem = text.split('\n').filter(function (line) { return /^Mem:/.test(line); })[0];
    if (!mem) throw new Error('no Mem: line in free -b');
    var f = mem.trim().split(/\s+/);
    return { total: Number(f[1]), used: Number(f[2]), available: Number(f[6]) };
}

/** `df -P`: one row per file system, the header dropped; mount points may hold spaces. */
function parseDf(text) {
    return text.split('\n').slice(1).filter(Boolean).map(function (line) {
        var f = line.trim().split(/\s+/);
        return { filesystem: f[0], blocks: Number(f[1]), used: Number(f[2]), available: Number(f[3]), capacity: parseInt(f[4], 10), mount: f.slice(5).join(' ') };
    });
}

var GiB = 1024 * 1024 * 1024;
var round1 = function (n) { return Math.round(n * 10) / 10; };

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Logs in over SSH and runs `true`.
 */
function validate() {
    ssh('true').then(function () { D.success(); }, fail);
}

/**
 * @remote_procedure
 * @label Get Status
 * @documentation Uptime, load averages, memory and file systems (df -P).
 */
function get_status() {
    var filesystems = D.createTable('File systems', [
        { label: 'File system' },
        { label: 'Size', unit: 'GiB', valueType: D.valueType.NUMBER },
        { label: 'Used', unit: 'GiB', valueType: D.valueType.NUMBER },
        { label: 'Use', unit: '%', valueType: D.valueType.NUMBER },
        { label: 'Mounted on' }
    ]);
    D.q.all([ssh('hostname'), ssh('cat /proc/uptime'), ssh('cat /proc/loadavg'), ssh('free -b'), ssh('df -P -x tmpfs -x devtmpfs')]).then(function (out) {
        var load = out[2].split(' ');
        var memory = parseMemory(out[3]);
        parseDf(out[4]).forEach(function (fs) {
            filesystems.insertRecord(fs.mount, [fs.filesystem, round1(fs.blocks * 1024 / GiB), round1(fs.used * 1024 / GiB), fs.capacity, fs.mount]);
        });
        D.success([
            D.createVariable('hostname', 'Host name', out[0]),
            D.createVariable('uptime', 'Uptime', round1(Number(out[1].split(' ')[0]) / 86400), 'days', D.valueType.NUMBER),
            D.createVariable('load-1', 'Load (1 min)', Number(load[0]), null, D.valueType.NUMBER),
            D.createVariable('load-5', 'Load (5 min)', Number(load[1]), null, D.valueType.NUMBER),
            D.createVariable('load-15', 'Load (15 min)', Number(load[2]), null, D.valueType.NUMBER),
            D.createVariable('memory-total', 'Memory', round1(memory.total / GiB), 'GiB', D.valueType.NUMBER),
            D.createVariable('memory-used', 'Memory used', D.math.percent(memory.total - memory.available, memory.total), '%', D.valueType.NUMBER)
        ], filesystems);
    }, fail).catch(function (e) {
        console.error('could not read the output: ' + e.message);
        D.failure(D.errorType.PARSING_ERROR);
    });
}
