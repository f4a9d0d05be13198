// A throw-away PKI for TLS tests, made at test time with node-forge: one CA and leaves
// that are valid, expired, for another host, or self-signed. Two RSA keys are generated
// per process (the CA's and one shared by every leaf) and the result is cached, so a test
// file that asks twice pays once.
import { randomBytes } from 'node:crypto';
import forge from 'node-forge';

const { pki } = forge;

export interface Credential {
  /** PEM certificate. */
  cert: string;
  /** PEM private key (PKCS#1). */
  key: string;
}

export interface TestPki {
  /** Self-signed CA, CN "driverbox test CA". */
  ca: Credential;
  /** Signed by the CA for CN=localhost, DNS:localhost + IP:127.0.0.1, valid from yesterday for a year. */
  valid: Credential;
  /** Like `valid`, but valid from two years ago to one year ago. */
  expired: Credential;
  /** Signed by the CA for other.example only (DNS:other.example). */
  wrongHost: Credential;
  /** Self-signed (not by the CA) for CN=localhost, DNS:localhost + IP:127.0.0.1. */
  selfSigned: Credential;
}

export const TEST_CA_NAME = 'driverbox test CA';

const DAY_MS = 24 * 60 * 60 * 1000;

function generateKeyPair(): Promise<forge.pki.rsa.KeyPair> {
  // node-forge hands this to node:crypto when it is available, so it takes ~0.1 s, not seconds.
  return new Promise((resolve, reject) => {
    pki.rsa.generateKeyPair({ bits: 2048, workers: -1 }, (error, keys) => (error ? reject(error) : resolve(keys)));
  });
}

/** A random positive serial number (hex, first byte below 0x80 so DER keeps it positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

interface LeafSpec {
  commonName: string;
  altNames: Array<{ type: 2; value: string } | { type: 7; ip: string }>;
  notBefore: Date;
  notAfter: Date;
}

const LOCALHOST_NAMES: LeafSpec['altNames'] = [
  { type: 2, value: 'localhost' },
  { type: 7, ip: '127.0.0.1' },
];

function makeCa(keys: forge.pki.rsa.KeyPair, now: number): forge.pki.Certificate {
  const cert = pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now - DAY_MS);
  cert.validity.notAfter = new Date(now + 10 * 365 * DAY_MS);
  const name = [
    { name: 'commonName', value: TEST_CA_NAME },
    { name: 'organizationName', value: 'driverbox' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return cert;
}

/** A leaf for `spec`, signed by `issuer` (or by itself when `issuer` is null). */
function makeLeaf(
  spec: LeafSpec,
  leafKeys: forge.pki.rsa.KeyPair,
  issuer: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } | null,
): forge.pki.Certificate {
  const cert = pki.createCertificate();
  cert.publicKey = leafKeys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = spec.notBefore;
  cert.validity.notAfter = spec.notAfter;
  cert.setSubject([{ name: 'commonName', value: spec.commonName }]);
  cert.setIssuer(issuer ? issuer.cert.subject.attributes : [{ name: 'commonName', value: spec.commonName }]);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: spec.altNames },
    { name: 'subjectKeyIdentifier' },
  ];
  if (issuer) {
    extensions.push({ name: 'authorityKeyIdentifier', keyIdentifier: issuer.cert.generateSubjectKeyIdentifier().getBytes() });
  }
  cert.setExtensions(extensions);
  cert.sign(issuer ? issuer.key : leafKeys.privateKey, forge.md.sha256.create());
  return cert;
}

async function buildPki(): Promise<TestPki> {
  const [caKeys, leafKeys] = await Promise.all([generateKeyPair(), generateKeyPair()]);
  const now = Date.now();
  const caCert = makeCa(caKeys, now);
  const issuer = { cert: caCert, key: caKeys.privateKey };
  const leafKey = pki.privateKeyToPem(leafKeys.privateKey);
  const credential = (cert: forge.pki.Certificate): Credential => ({ cert: pki.certificateToPem(cert), key: leafKey });

  const currentYear = { notBefore: new Date(now - DAY_MS), notAfter: new Date(now + 364 * DAY_MS) };
  return {
    ca: { cert: pki.certificateToPem(caCert), key: pki.privateKeyToPem(caKeys.privateKey) },
    valid: credential(makeLeaf({ commonName: 'localhost', altNames: LOCALHOST_NAMES, ...currentYear }, leafKeys, issuer)),
    expired: credential(
      makeLeaf(
        { commonName: 'localhost', altNames: LOCALHOST_NAMES, notBefore: new Date(now - 2 * 365 * DAY_MS), notAfter: new Date(now - 365 * DAY_MS) },
        leafKeys,
        issuer,
      ),
    ),
    wrongHost: credential(makeLeaf({ commonName: 'other.example', altNames: [{ type: 2, value: 'other.example' }], ...currentYear }, leafKeys, issuer)),
    selfSigned: credential(makeLeaf({ commonName: 'localhost', altNames: LOCALHOST_NAMES, ...currentYear }, leafKeys, null)),
  };
}

let cached: Promise<TestPki> | null = null;

/** The test PKI; made once per process (per test file under the forks pool). */
export function makeTestPki(): Promise<TestPki> {
  if (!cached) {
    cached = buildPki();
    cached.catch(() => {
      cached = null; // let a later call try again
    });
  }
  return cached;
}
