// A self-signed certificate made when a bench starts, as most HTTPS devices have: RSA 2048,
// CN=localhost with the loopback address, valid from yesterday for a year. node-forge hands
// the key generation to node:crypto, so this takes about a tenth of a second.
import { randomBytes } from 'node:crypto';
import forge from 'node-forge';

export interface SelfSigned {
  cert: string;
  key: string;
}

/** `extraNames`: more DNS names for the certificate (a test makes it large with them). */
export async function makeSelfSigned(extraNames: string[] = []): Promise<SelfSigned> {
  const keys = await new Promise<forge.pki.rsa.KeyPair>((resolve, reject) => {
    forge.pki.rsa.generateKeyPair({ bits: 2048, workers: -1 }, (error, pair) => (error ? reject(error) : resolve(pair)));
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01; // positive in DER
  cert.serialNumber = serial.toString('hex');
  const day = 24 * 60 * 60 * 1000;
  cert.validity.notBefore = new Date(Date.now() - day);
  cert.validity.notAfter = new Date(Date.now() + 365 * day);
  const name = [{ name: 'commonName', value: 'localhost' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, ...extraNames.map((value) => ({ type: 2, value }))] },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}
