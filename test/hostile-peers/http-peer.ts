// The hostile HTTP device of http.test.ts, in a worker thread: what it does to make its answers
// costs its own loop, never the host's, so the host's watch sees only the host's work. It speaks
// raw HTTP/1.1 on node:net (no node:http to tidy its answers), each path one way to misbehave,
// and TLS on three more ports whose certificates are built to be costly to read.
import { Worker } from 'node:worker_threads';

export interface HttpPeer {
  port: number;
  /** TLS ports: a leaf with thousands of subject alt names; one with a huge unknown extension; a long chain. */
  tls: { manyNames: number; hugeExtension: number; longChain: number; deepExtension: number };
  close(): Promise<void>;
}

// Plain JavaScript: a worker thread has no TypeScript loader.
const PEER_SOURCE = String.raw`
const net = require('node:net');
const tls = require('node:tls');
const zlib = require('node:zlib');
const crypto = require('node:crypto');
const forge = require('node-forge');
const { parentPort } = require('node:worker_threads');

const head = (status, headers) => 'HTTP/1.1 ' + status + '\r\n' + headers.map((h) => h + '\r\n').join('') + '\r\n';
const bomb = zlib.gzipSync(Buffer.alloc(256 * 1024 * 1024)); // 256 MiB of zeros, ~250 KB on the wire
let cookieRound = 0;

/** Writes chunks until the socket closes, waiting for drain: endless, at the host's reading pace. */
function endless(socket, chunk) {
  const more = () => {
    while (!socket.destroyed && socket.write(chunk)) {}
  };
  socket.on('drain', more);
  more();
}

/** One byte every ms milliseconds until the socket closes. */
function drip(socket, byte, ms) {
  const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(byte)), ms);
  socket.on('close', () => clearInterval(timer));
}

const answers = {
  '/ok': (s) => s.end(head('200 OK', ['content-length: 2', 'connection: close']) + 'ok'),
  '/endless': (s) => {
    s.write(head('200 OK', ['transfer-encoding: chunked']));
    const data = 'a'.repeat(64 * 1024);
    endless(s, data.length.toString(16) + '\r\n' + data + '\r\n');
  },
  '/drip-body': (s) => {
    s.write(head('200 OK', ['content-length: 1000000']));
    drip(s, 'a', 5);
  },
  '/drip-headers': (s) => {
    s.write('HTTP/1.1 200 OK\r\nx-slow: ');
    drip(s, 'a', 5);
  },
  '/many-headers': (s) => {
    const lines = [];
    for (let i = 0; i < 5000; i++) lines.push('x-h' + i + ': v');
    s.end(head('200 OK', [...lines, 'content-length: 0']));
  },
  '/huge-header': (s) => s.end(head('200 OK', ['x-big: ' + 'a'.repeat(1024 * 1024), 'content-length: 0'])),
  '/huge-body': (s) => {
    const size = 12 * 1024 * 1024;
    s.write(head('200 OK', ['content-length: ' + size, 'connection: close']));
    s.end(Buffer.alloc(size, 0x61));
  },
  '/ctl-body': (s) => {
    // 3 MiB of 0x01: six characters each once written as JSON for the sandbox.
    const size = 3 * 1024 * 1024;
    s.write(head('200 OK', ['content-length: ' + size, 'connection: close']));
    s.end(Buffer.alloc(size, 1));
  },
  '/gzip-bomb': (s) => {
    s.write(head('200 OK', ['content-encoding: gzip', 'content-length: ' + bomb.length, 'connection: close']));
    s.end(bomb);
  },
  '/bad-chunking': (s) => s.end(head('200 OK', ['transfer-encoding: chunked']) + 'zz\r\nhello\r\n0\r\n\r\n'),
  '/lying-length': (s) => {
    s.write(head('200 OK', ['content-length: 100000']) + 'only this');
    setTimeout(() => s.end(), 20);
  },
  '/reset-mid-body': (s) => {
    s.write(head('200 OK', ['content-length: 100000']) + 'a'.repeat(5000));
    setTimeout(() => s.resetAndDestroy(), 20);
  },
  '/hostile-values': (s) => {
    // Values built against backtracking parsers; the whole head stays under the host's 16 KiB bound.
    const lines = [
      'content-type: text/html; charset=' + '="'.repeat(1500) + ';'.repeat(500),
      'www-authenticate: Basic realm="' + '\\"'.repeat(1500) + '", ' + 'a=,'.repeat(500),
      'set-cookie: a=b' + '; '.repeat(1000) + 'x',
      'set-cookie: c=d; expires=' + '1 '.repeat(1000) + '; path=/' + '/'.repeat(500),
      'set-cookie: ' + '='.repeat(1000) + '; domain=' + '.'.repeat(1000),
      'set-cookie: e=f; max-age=' + '9'.repeat(1000),
      'content-length: 2',
      'connection: close',
    ];
    s.end(head('200 OK', lines) + 'ok');
  },
  '/hostile-location': (s) => s.end(head('302 Found', ['location: /' + '%2e%2e/'.repeat(1500) + '?' + '&='.repeat(500), 'content-length: 0', 'connection: close'])),
  '/cookies': (s) => {
    // 150 new cookies each on its own path, every answer: a jar that keeps empty paths walks them all.
    const round = cookieRound++;
    const lines = [];
    for (let i = 0; i < 150; i++) lines.push('set-cookie: c' + round + '_' + i + '=v; Path=/p' + round + '_' + i);
    s.end(head('200 OK', [...lines, 'content-length: 2', 'connection: close']) + 'ok');
  },
  '/json-huge': (s) => {
    // 4 million numbers: a host that parses it holds an array of them, then writes it out again.
    const body = '[' + '0,'.repeat(4 * 1024 * 1024 - 1) + '0]';
    s.end(head('200 OK', ['content-type: application/json', 'content-length: ' + body.length, 'connection: close']) + body);
  },
  '/json-deep': (s) => {
    const body = '['.repeat(2 * 1024 * 1024);
    s.end(head('200 OK', ['content-type: application/json', 'content-length: ' + body.length, 'connection: close']) + body);
  },
};

const server = net.createServer((socket) => {
  socket.on('error', () => {});
  let seen = '';
  socket.on('data', function onData(data) {
    seen += data.toString('latin1');
    const end = seen.indexOf('\r\n\r\n');
    if (end < 0) return;
    socket.off('data', onData);
    socket.resume();
    const path = (seen.split(' ')[1] || '/').split('?')[0];
    (answers[path] || answers['/ok'])(socket);
  });
});

// ---- TLS: certificates costly to read
const pki = forge.pki;
function keyPair() {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' })),
    publicKey: pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' })),
  };
}
let serial = 1;
function certificate(subject, issuer, keys, signer, extensions) {
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = (0x10000000 + serial++).toString(16);
  cert.validity.notBefore = new Date(Date.now() - 86400000);
  cert.validity.notAfter = new Date(Date.now() + 86400000 * 30);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer }]);
  cert.setExtensions(extensions);
  cert.sign(signer, forge.md.sha256.create());
  return pki.certificateToPem(cert);
}
const leafKeys = keyPair();
const keyPem = pki.privateKeyToPem(leafKeys.privateKey);
const asn1 = forge.asn1;

// 2700 DNS names: ~54 KB, within the host's 64 KiB bound on a certificate read.
const altNames = [];
for (let i = 0; i < 2700; i++) altNames.push({ type: 2, value: 'n' + i + '.example.test' });
altNames.push({ type: 7, ip: '127.0.0.1' });
const manyNames = certificate('many names', 'many names', leafKeys, leafKeys.privateKey, [{ name: 'subjectAltName', altNames }]);

// An unknown extension of 60 KB of BIT STRINGs nested in one another (forge tries to read BIT
// STRING contents as ASN.1), and one of SEQUENCEs nested 20000 deep (84 KB: past the host's bound).
function nestedBitStrings(depth) {
  let node = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, 'x');
  for (let i = 0; i < depth; i++) node = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, '\x00' + asn1.toDer(node).getBytes());
  return asn1.toDer(node).getBytes();
}
function nestedSequences(depth) {
  // Written by hand: forge's own writer is recursive. Long-form lengths past depth 64.
  let der = '\x05\x00';
  for (let i = 0; i < depth; i++) {
    const n = der.length;
    const length = n < 128 ? String.fromCharCode(n) : n < 256 ? '\x81' + String.fromCharCode(n) : n < 65536 ? '\x82' + String.fromCharCode(n >> 8, n & 255) : '\x83' + String.fromCharCode(n >> 16, (n >> 8) & 255, n & 255);
    der = '\x30' + length + der;
  }
  return der;
}
const hugeExtension = certificate('huge extension', 'huge extension', leafKeys, leafKeys.privateKey, [
  { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  { id: '1.3.6.1.4.1.55555.1', value: nestedBitStrings(600) + 'a'.repeat(60000) },
]);
const deepExtension = certificate('deep extension', 'deep extension', leafKeys, leafKeys.privateKey, [
  { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  { id: '1.3.6.1.4.1.55555.2', value: nestedSequences(20000) },
]);

// A chain of 60 CAs above the leaf, each signing the next.
const caKeys = keyPair();
const chain = [];
for (let i = 0; i < 60; i++) chain.push(certificate('ca ' + (i + 1), 'ca ' + i, caKeys, caKeys.privateKey, [{ name: 'basicConstraints', cA: true }]));
const longLeaf = certificate('long chain leaf', 'ca 60', leafKeys, caKeys.privateKey, [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);

function tlsServer(cert) {
  const s = tls.createServer({ key: keyPem, cert }, (socket) => {
    socket.on('error', () => {});
    socket.end();
  });
  s.on('tlsClientError', () => {});
  return s;
}
const servers = [server, tlsServer(manyNames), tlsServer(hugeExtension), tlsServer(longLeaf + chain.reverse().join('')), tlsServer(deepExtension)];
Promise.all(servers.map((s) => new Promise((resolve) => s.listen(0, '127.0.0.1', resolve)))).then(() => {
  const [plain, many, huge, long, deep] = servers.map((s) => s.address().port);
  parentPort.postMessage({ port: plain, tls: { manyNames: many, hugeExtension: huge, longChain: long, deepExtension: deep } });
});
`;

export async function startHttpPeer(): Promise<HttpPeer> {
  const worker = new Worker(PEER_SOURCE, { eval: true });
  const ports = await new Promise<Omit<HttpPeer, 'close'>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { ...ports, close: () => worker.terminate().then(() => {}) };
}
