/**
 * TLS certificate expiry driver: reads the certificate a device's HTTPS port presents and reports
 * when it expires and whether it verifies, so an expiring or self-signed certificate is noticed.
 * Parameters: "port" (default 443), "warnDays" (default 30).
 */

function readCertificate(onCertificate) {
    var port = parseInt(D.getParameter('port'), 10) || 443;
    D.device.http.getTLSCertificate({ port: port }, function (error, certificate) {
        if (error) {
            console.error('no TLS certificate on port ' + port + ': ' + error.message);
            return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        }
        onCertificate(certificate);
    });
}

/**
 * @remote_procedure
 * @label Validate Association
 * @documentation Checks that the port presents a TLS certificate.
 */
function validate() {
    readCertificate(function () { D.success(); });
}

/**
 * @remote_procedure
 * @label Get Certificate Status
 * @documentation Days to expiry, expiry date, issuer, subject, whether it verifies, and why not.
 */
function get_status() {
    var warnDays = parseInt(D.getParameter('warnDays'), 10) || 30;
    readCertificate(function (certificate) {
        if (certificate.daysToExpiry <= warnDays) console.warn('certificate expires in ' + certificate.daysToExpiry + ' days');
        D.success([
            D.createVariable('days-to-expiry', 'Days to expiry', certificate.daysToExpiry, 'days', D.valueType.NUMBER),
            D.createVariable('expiry', 'Expires', certificate.expiry),
            D.createVariable('issuer', 'Issuer', certificate.issuer),
            D.createVariable('subject', 'Subject', certificate.subject),
            D.createVariable('valid', 'Verifies', certificate.valid, null, D.valueType.BOOLEAN),
            D.createVariable('cert-error', 'Verification error', certificate.certError || 'none'),
            D.createVariable('expiring', 'Expiring soon', certificate.daysToExpiry <= warnDays, null, D.valueType.BOOLEAN)
        ]);
    });
}
