/**
 * Windows host over WinRM: the operating system's name, version and memory as variables, and the
 * local disks (size, free space, usage) as a table. One PowerShell command each, answered as JSON.
 * Credentials: the device's (a "DOMAIN\user" name authenticates with NTLM, others with basic).
 */

var OS_COMMAND = 'Get-CimInstance Win32_OperatingSystem | Select-Object Caption, Version, TotalVisibleMemorySize, FreePhysicalMemory | ConvertTo-Json -Compress';
var DISKS_COMMAND = 'Get-CimInstance Win32_LogicalDisk -Filter "DriveType=3" | Select-Object DeviceID, VolumeName, Size, FreeSpace | ConvertTo-Json -Compress';

var disks = D.createTable('Disks', [
    { label: 'Name' },
    { label: 'Size', unit: 'GiB', valueType: D.valueType.NUMBER },
    { label: 'Free', unit: 'GiB', valueType: D.valueType.NUMBER },
    { label: 'Usage', unit: '%', valueType: D.valueType.NUMBER }
]);

/** Runs one command; onJson gets its output parsed. Any failure ends the run with the matching error type. */
function powershell(command, onJson) {
    D.device.sendWinRMCommand({ command: command, timeout: 20000 }, function (output) {
        if (output.error) {
            console.error(output.error.message);
            if (output.error.code === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        onJson(JSON.parse(output.outcome.stdout));
    });
}

var GiB = 1024 * 1024 * 1024;
var round = function (n) { return Math.round(n * 100) / 100; };

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Runs a trivial command to check WinRM access with the device's credentials.
 */
function validate() {
    powershell('$PSVersionTable.PSVersion.Major', function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Device Variables
 * @documentation Reads the operating system and the local disks.
 */
function get_status() {
    powershell(OS_COMMAND, function (os) {
        powershell(DISKS_COMMAND, function (list) {
            // ConvertTo-Json gives an object, not a list, when there is one disk.
            [].concat(list).forEach(function (disk) {
                var size = disk.Size / GiB;
                var free = disk.FreeSpace / GiB;
                disks.insertRecord(disk.DeviceID.replace(':', '').toLowerCase(), [disk.VolumeName || disk.DeviceID, round(size), round(free), round(100 * (size - free) / size)]);
            });
            var totalMb = os.TotalVisibleMemorySize / 1024;
            var freeMb = os.FreePhysicalMemory / 1024;
            D.success([
                D.createVariable('os', 'Operating System', os.Caption),
                D.createVariable('version', 'Version', os.Version),
                D.createVariable('memory-used', 'Memory Used', round(100 * (totalMb - freeMb) / totalMb), '%', D.valueType.NUMBER)
            ], disks);
        });
    });
}
