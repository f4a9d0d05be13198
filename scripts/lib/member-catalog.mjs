// What the runtime's objects really have, read from inside a real sandbox: a probe driver makes
// each object D hands a driver (a table, a variable, a metric, an external device, an SNMP
// session, a backup, a timer, a q deferred, an HTTP response, body, error and TLS certificate
// from the generic device) and lists, for each, every member name along its prototype chain
// and the members of its own object and text fields, three levels deep. Outputs of SSH, Telnet,
// SNMP and WinRM calls are texts, lists and plain objects (docs/reference/driver-api/*.md): the probe
// lists a value of that form. scripts/corpus-check.mjs checks the calls scripts/lib/object-calls.mjs
// finds against this catalog, so it cannot drift from the runtime.

const PROBE = String.raw`
function shape(v, depth) {
  if (v === null || v === undefined) return null;
  var o = Object(v), names = [], seen = Object.create(null), children = {};
  for (var p = o; p; p = Object.getPrototypeOf(p)) Object.getOwnPropertyNames(p).forEach(function (n) { if (!seen[n] && !/^\d+$/.test(n)) { seen[n] = 1; names.push(n); } });
  if (depth < 3 && typeof v === 'object') Object.getOwnPropertyNames(v).forEach(function (n) {
    if (/^\d+$/.test(n)) return;
    var d = Object.getOwnPropertyDescriptor(v, n);
    if (d && 'value' in d && d.value !== null && (typeof d.value === 'object' || typeof d.value === 'string')) children[n] = shape(d.value, depth + 1);
  });
  return { members: names, children: children };
}
function union(a, b) {
  if (!a) return b; if (!b) return a;
  var names = a.members.slice(); b.members.forEach(function (n) { if (names.indexOf(n) < 0) names.push(n); });
  var children = {}; Object.keys(a.children).forEach(function (k) { children[k] = a.children[k]; });
  Object.keys(b.children).forEach(function (k) { children[k] = union(children[k], b.children[k]); });
  return { members: names, children: children };
}
function withCode(e) { e.code = 'CODE'; return e; }
function get_status() {
  var out = {};
  out.table = shape(D.createTable('T', [{ label: 'c' }]), 0);
  out.variable = union(shape(D.createVariable('u', 'L', 1), 0), shape(D.createMetric({ uid: 'm', name: 'M', value: 1, metadata: { url: 'https://x' } }), 0));
  out.externalDevice = shape(D.createExternalDevice('probe.invalid'), 0);
  out.snmpSession = shape(D.device.createSNMPSession(), 0);
  out.backup = shape(D.createBackup({ label: 'b', running: 'r', startup: 's' }), 0);
  var timer = setTimeout(function () {}, 1); out.timer = shape(timer, 0); clearTimeout(timer);
  var interval = setInterval(function () {}, 1000); out.timer = union(out.timer, shape(interval, 0)); clearInterval(interval);
  out.deferred = shape(D.q.defer(), 0);
  out.sshOutput = shape('text', 0); out.telnetOutput = out.sshOutput;
  out.sshOutputs = shape(['text'], 0);
  out.snmpOutput = shape({}, 0);
  out.winrmOutput = shape({ outcome: { stdout: '', stderr: '' }, error: withCode(new Error('e')) }, 0);
  out.sshError = out.telnetError = out.snmpError = shape(withCode(new Error('e')), 0);
  D.device.http.get({ url: '/probe' }, function (error, response, body) {
    out.httpResponse = shape(response, 0); out.httpBody = shape(body, 0);
    D.device.http.get({ url: '/probe', json: true }, function (e2, r2, json) {
      out.httpBody = union(out.httpBody, shape(json, 0));
      out.httpBody = union(out.httpBody, shape([json], 0));
      D.device.http.get({ url: '/probe', encoding: null }, function (e3, r3, bytes) {
        out.httpBody = union(out.httpBody, shape(bytes, 0));
        D.device.http.get({ url: '/probe', port: 1 }, function (e4) {
          out.httpError = shape(e4, 0);
          D.device.http.getTLSCertificate({ port: 443 }, function (e5, certificate) {
            out.certificate = shape(certificate, 0);
            console.log(JSON.stringify(out));
            D.success();
          });
        });
      });
    });
  });
}
function validate() { get_status(); }
`;

/** Runs the probe on `host` against the generic device at `device` ({ ip, portMap }); answers the catalog by kind. */
export async function memberCatalog(host, device) {
  const result = await host.run({ source: PROBE, filename: 'member-probe.js', action: 'get_status', device, externalHosts: ['probe.invalid'], limits: { timeoutMs: 15_000 } });
  const line = result.logs.find((l) => l.message.startsWith('{'));
  if (result.status !== 'success' || !line) throw new Error(`the member probe failed: ${result.errorType} ${result.message} ${result.logs.map((l) => l.message).join(' | ')}`);
  return JSON.parse(line.message);
}

/**
 * 'ok' when the runtime's object of `kind` has `member` (a path: `http.get`), 'missing' when
 * the object before its last step is known and lacks it, 'unknown' when the path leaves what
 * the probe saw (a data field of the device's answer).
 */
export function lookup(catalog, kind, member) {
  let node = catalog[kind];
  if (!node) return 'unknown';
  const steps = member.split('.');
  for (let i = 0; i < steps.length - 1; i++) {
    node = node.children?.[steps[i]];
    if (!node) return 'unknown';
  }
  return node.members.includes(steps[steps.length - 1]) ? 'ok' : 'missing';
}
