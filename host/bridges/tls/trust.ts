// The certificate authorities a driver's HTTPS requests and getTLSCertificate verify
// against: Node's bundled roots, the system bundle when there is one, and whatever the
// host application adds (a company CA, or a test CA). One secure context is built per
// store and reused by every connection, because building one per connection costs ms.
import { readFileSync } from 'node:fs';
import tls from 'node:tls';

/** Where Linux distributions keep the system CA bundle (Debian/Ubuntu/Alpine, RHEL/Fedora). */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

export interface TrustStore {
  /** PEM certificates, in the form node:tls takes as `ca`. */
  readonly ca: readonly string[];
  readonly secureContext: tls.SecureContext;
  /**
   * The same CAs, also accepting TLS 1.0/1.1 and weak keys (OpenSSL security level 0): for
   * connections where the driver asked for no verification and for reading a certificate,
   * because old devices (UPSes, printers) speak nothing newer.
   */
  readonly legacySecureContext: tls.SecureContext;
}

let systemCAs: string[] | null = null;

function readSystemCAs(): string[] {
  if (systemCAs) return systemCAs;
  systemCAs = [];
  for (const file of SYSTEM_BUNDLES) {
    try {
      systemCAs.push(readFileSync(file, 'utf8'));
      break;
    } catch {
      // not this distribution's layout
    }
  }
  return systemCAs;
}

export function createTrustStore(extraCAs: readonly string[] = []): TrustStore {
  for (const pem of extraCAs) {
    if (typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new TypeError('trustedCAs must be PEM certificates ("-----BEGIN CERTIFICATE-----…")');
    }
  }
  const ca = [...tls.rootCertificates, ...readSystemCAs(), ...extraCAs];
  let legacy: tls.SecureContext | null = null;
  return {
    ca,
    secureContext: tls.createSecureContext({ ca }),
    get legacySecureContext() {
      legacy ??= tls.createSecureContext({ ca, minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
      return legacy;
    },
  };
}
