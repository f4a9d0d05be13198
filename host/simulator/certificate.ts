// The simulated device's TLS certificate: self-signed, made with node-forge at start (no
// key material in the repository), naming every address a driver may dial the device by.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import forge from 'node-forge';

const { pki } = forge;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface SimulatorCertificate {
  /** PEM certificate: what a host may add to `trustedCAs` to trust the simulator. */
  cert: string;
  /** PEM private key (PKCS#1). */
  key: string;
  /** The names it is valid for, as subjectAltName entries: "DNS:localhost", "IP:127.0.0.1", … */
  altNames: string[];
}

export interface CertificateRequest {
  /** The certificate's CN; also in the alt names. */
  commonName: string;
  /** Host names and IPs it must be valid for, besides localhost and 127.0.0.1. */
  names: string[];
  /** Days from now to expiry; zero or negative makes a certificate that has already expired. */
  expiresInDays: number;
}

/** A random positive serial number (first byte below 0x80, so DER keeps it positive). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes.toString('hex');
}

export async function makeSimulatorCertificate(request: CertificateRequest): Promise<SimulatorCertificate> {
  // Node generates the key (fast, native); forge builds and signs the certificate.
  const { publicKey, privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const names = [...new Set(['localhost', '127.0.0.1', request.commonName, ...request.names].map((n) => n.toLowerCase()))];
  const altNames = names.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name }));

  const now = Date.now();
  const notAfter = new Date(now + request.expiresInDays * DAY_MS);
  // An expired certificate was valid for a year before it expired; a current one since yesterday.
  const notBefore = request.expiresInDays > 0 ? new Date(now - DAY_MS) : new Date(notAfter.getTime() - 365 * DAY_MS);

  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(publicKey);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  const subject = [
    { name: 'commonName', value: request.commonName },
    { name: 'organizationName', value: 'driverbox simulator' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return {
    cert: pki.certificateToPem(cert),
    key: privateKey,
    altNames: names.map((name) => (isIP(name) ? `IP:${name}` : `DNS:${name}`)),
  };
}
