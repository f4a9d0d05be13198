// The codes a driver's error gets from the host's bridges (err.code of D.device.http* and
// getTLSCertificate, of an SSH, Telnet, SNMP, WinRM or TFTP call): one registry, code → what it
// means. A bridge types each code it makes as DriverErrorCode, so a misspelled one fails to compile
// (test/error-codes.test.ts also checks the bridges' sources against this list). A code the peer's
// stack named (a socket's errno code, an OpenSSL verify code, net-snmp's error name) reaches the
// driver as it came, marked with passedThrough(); the ones the host itself names are listed here.
// (DriverboxErrorCode, errors.ts, is the other registry: what the host throws at its callers.)

export const DRIVER_ERROR_CODES = {
  // Any call
  INVALID_OPTIONS: "the driver's options or the call's shape are wrong (type, range, missing field); nothing was sent",
  INVALID_TARGET: 'the call names a device the run does not know (not the run’s own nor one D.createExternalDevice made)',
  INTERNAL_ERROR: "the host's own code failed while serving this call: the call fails, never the host",
  ABORTED: 'the run ended before the answer came; whatever was open for the call is closed',
  TIMEOUT: "the run's deadline, or the SSH call's own timeout, came before the call ended",
  ETIMEDOUT: "no connection or answer within the call's timeout (Node's name for it)",
  NETWORK_ERROR: 'the connection failed without a code of its own',
  ECONNRESET: 'the peer closed the connection before the answer (also for undici socket errors and EPIPE)',
  ECONNREFUSED: 'nothing listens on the port dialled (passed through from the socket)',
  ENOTFOUND: 'the host name could not be resolved (passed through from DNS)',
  EAI_AGAIN: 'the host name could not be resolved for now (passed through from DNS)',
  NO_ADDRESS: 'the device has no IP address or host name for an SSH, Telnet, SNMP, WinRM or TFTP call',
  MISSING_DEVICE_ADDRESS: 'the device has no IP address or host name for an HTTP request or a TLS read',
  PORT_NOT_SIMULATED: "a simulated device's port its simulator does not serve: another port of its address is the host machine's own",
  TOO_MANY_REQUESTS: "the run made as many HTTP requests and TLS reads as its maxHttpRequests allows",
  TOO_MANY_SESSIONS: 'the run opened as many device sessions as its maxProtocolSessions allows',
  TOO_MANY_COMMANDS: 'the run sent as many device commands as its maxProtocolCommands allows',
  OUTPUT_TOO_LARGE: "a call's output (SSH, Telnet, SNMP, WinRM, a TFTP upload) passed the run's maxOutputBytes",
  PATTERN_FAILED: "a driver's prompt pattern (SSH shell, Telnet) threw on the device's output",
  PATTERN_BUDGET_EXCEEDED: "the run's prompt patterns used up their time budget on the device's output",
  // HTTP
  INVALID_URL: 'the url option is not a path on the device (a host, a control character, a backslash)',
  INVALID_HEADER: 'a header value holds CR, LF or NUL',
  REDIRECT_REFUSED: 'the device redirected somewhere the run may not go (another host, another scheme, userinfo)',
  TOO_MANY_REDIRECTS: 'more redirects than the maxRedirects option allows',
  BODY_TOO_LARGE: "the answer's body (as received, decompressed or as delivered) passed maxResponseBytes or the run's share of buffers",
  HOST_BUFFERS_FULL: 'the host holds as many answer bytes for its runs as maxBufferedBytes allows: try again later',
  HEADERS_TOO_LARGE: "the answer's headers are larger than the host reads (Node's maxHeaderSize)",
  DECOMPRESSION_ERROR: 'the body could not be decoded by its content-encoding',
  JSON_TOO_DEEP: 'a JSON answer asked for with json: true nests deeper than the host parses',
  ERR_TLS_CERT_ALTNAME_INVALID: "the device's certificate does not name the host dialled (passed through from Node's TLS)",
  // TLS (getTLSCertificate)
  TLS_ERROR: 'the TLS connection failed without a code of its own',
  NO_CERTIFICATE: 'the TLS handshake completed without a certificate',
  CERTIFICATE_TOO_LARGE: 'the certificate is larger than the host reads',
  CERTIFICATE_UNREADABLE: 'the certificate could not be parsed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "a certificate's certError when Node gives no verify code of its own",
  // Record and replay
  REPLAY_MISS: 'a replayed run made a request or call that the recording does not hold',
  // SSH
  AUTHENTICATION_FAILED: 'the SSH server refused the credentials',
  CONNECTION_FAILED: 'the SSH connection could not be made or broke before the command started',
  DISCONNECTED: 'the SSH connection closed before the shell sequence ended',
  EXIT_STATUS: 'the SSH command exited with a non-zero status',
  ERROR_PROMPT: "the SSH shell showed the driver's error prompt",
  // SNMP
  SNMP_ERROR: "net-snmp failed without an error name of its own (net-snmp's names pass through)",
  OID_NOT_INCREASING: "the agent's walk did not move forward",
  MALFORMED_ANSWER: "the agent's answer could not be decoded",
  SOCKET_ERROR: 'the SNMP socket failed',
  // WinRM
  COMMAND_FAILED: 'the WinRM command exited with a non-zero code',
  HTTP_ERROR: 'the WinRM service answered a status other than 2xx',
  MALFORMED_RESPONSE: "the WinRM service's answer is not the XML expected",
  SOAP_FAULT: 'the WinRM service answered a SOAP fault',
  NTLM_ERROR: "the WinRM server's NTLM challenge is malformed",
  // TFTP
  TFTP_BUSY: 'the run already has its one TFTP receiver, or its upload was already delivered',
  TFTP_ERROR: 'the TFTP receiver could not open, or the upload failed',
  TFTP_TIMEOUT: 'the device sent no complete upload within the timeout',
} as const;

/** A code one of the host's bridges hands a driver. */
export type DriverErrorCode = keyof typeof DRIVER_ERROR_CODES;

declare const passed: unique symbol;
/** A code as the peer's stack named it (ECONNREFUSED, CERT_HAS_EXPIRED, RequestTimedOutError…), not one of the host's. */
export type PassedThroughCode = string & { readonly [passed]: true };

/** Marks a code the host hands on as it came (a socket's, OpenSSL's, net-snmp's). */
export const passedThrough = (code: string): PassedThroughCode => code as PassedThroughCode;

/** What a bridge may put in a driver's err.code. */
export type DriverCode = DriverErrorCode | PassedThroughCode;
