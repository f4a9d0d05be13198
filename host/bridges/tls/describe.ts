// What getTLSCertificate tells a driver about a certificate, read from its DER bytes with
// node-forge. The TBSCertificate is walked with forge's ASN.1 reader rather than
// forge.pki.certificateFromAsn1, because that one refuses every certificate whose key is
// not RSA (ECDSA and Ed25519 certificates are common on devices).
import { createHash } from 'node:crypto';
import forge from 'node-forge';

const { asn1 } = forge;
type Asn1 = forge.asn1.Asn1;

/** forge functions that exist at runtime but are missing from @types/node-forge. */
const pkiExtra = forge.pki as unknown as {
  RDNAttributesAsArray(rdn: Asn1): Array<{ type: string; value: string; valueTagClass: number; name?: string; shortName?: string }>;
  certificateExtensionFromAsn1(ext: Asn1): { name?: string; altNames?: Array<{ type: number; value: string; ip?: string | null; oid?: string }> };
};

export interface CertificateDescription {
  /** The issuer's organization (O), else its common name (CN), else its whole name. */
  issuer: string;
  /** The issuer's whole distinguished name, e.g. "CN=driverbox test CA, O=driverbox". */
  issuerDN: string;
  /** The subject's whole distinguished name, e.g. "CN=localhost". */
  subject: string;
  /** e.g. ["DNS:localhost", "IP:127.0.0.1"]. */
  subjectAltNames: string[];
  /** notBefore, in Node's `valid_from` form: "Nov 20 01:09:24 2026 GMT". */
  validFrom: string;
  /** notAfter, in Node's `valid_to` form: "Nov 20 01:09:24 2027 GMT". */
  expiry: string;
  /** Whole days from now to notAfter, rounded down: negative once expired. */
  daysToExpiry: number;
  /** SHA-256 of the DER bytes, upper-case hex pairs joined by colons (Node's fingerprint256). */
  fingerprint256: string;
  /** Upper-case hex, without DER's sign byte (as Node's X509Certificate.serialNumber). */
  serialNumber: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** The form OpenSSL prints and Node's getPeerCertificate().valid_to uses: "Jan  5 09:03:07 2027 GMT". */
export function formatCertificateDate(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} ${date.getUTCFullYear()} GMT`;
}

function readTime(node: Asn1 | undefined): Date {
  if (node?.type === asn1.Type.UTCTIME) return asn1.utcTimeToDate(node.value as string);
  if (node?.type === asn1.Type.GENERALIZEDTIME) return asn1.generalizedTimeToDate(node.value as string);
  throw new Error('the certificate has no readable validity dates');
}

/** Attribute values arrive as the string's raw bytes; UTF8String and BMPString need decoding. */
function decodeValue(value: string, tag: number): string {
  try {
    if (tag === asn1.Type.UTF8) return forge.util.decodeUtf8(value);
    if (tag === asn1.Type.BMPSTRING) return Buffer.from(value, 'binary').swap16().toString('utf16le');
  } catch {
    // not well-formed: keep the bytes as Latin-1 text
  }
  return value;
}

function nameAttributes(name: Asn1): Array<{ key: string; value: string }> {
  return pkiExtra.RDNAttributesAsArray(name).map((attribute) => ({
    key: attribute.shortName ?? attribute.name ?? attribute.type,
    value: decodeValue(attribute.value, attribute.valueTagClass),
  }));
}

function distinguishedName(attributes: Array<{ key: string; value: string }>): string {
  return attributes.map(({ key, value }) => `${key}=${value}`).join(', ');
}

const ALT_NAME_PREFIX: Record<number, string> = { 1: 'email', 2: 'DNS', 6: 'URI' };

function subjectAltNames(extensions: Asn1 | undefined): string[] {
  const names: string[] = [];
  // [3] EXPLICIT Extensions: a SEQUENCE of Extension SEQUENCEs
  const list = (extensions?.value as Asn1[] | undefined)?.[0]?.value as Asn1[] | undefined;
  for (const extension of list ?? []) {
    let parsed: ReturnType<typeof pkiExtra.certificateExtensionFromAsn1>;
    try {
      parsed = pkiExtra.certificateExtensionFromAsn1(extension);
    } catch {
      continue; // an extension forge cannot read says nothing about the names
    }
    if (parsed.name !== 'subjectAltName') continue;
    for (const altName of parsed.altNames ?? []) {
      if (altName.type === 7) {
        names.push(`IP:${altName.ip ?? forge.util.bytesToHex(altName.value)}`);
      } else if (altName.type === 8 && altName.oid) {
        names.push(`RID:${altName.oid}`);
      } else if (ALT_NAME_PREFIX[altName.type]) {
        names.push(`${ALT_NAME_PREFIX[altName.type]}:${altName.value}`);
      }
      // otherName, x400Address, directoryName, ediPartyName: not shown
    }
  }
  return names;
}

function colonHex(bytes: Buffer): string {
  return bytes.toString('hex').toUpperCase().replace(/(..)(?!$)/g, '$1:');
}

/**
 * Describes a DER certificate (`getPeerCertificate().raw`). Throws when the bytes are not
 * an X.509 certificate.
 */
export function describeCertificate(der: Uint8Array, now: number = Date.now()): CertificateDescription {
  const bytes = Buffer.from(der.buffer, der.byteOffset, der.byteLength);
  const certificate = asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')));
  const tbs = (certificate.value as Asn1[])[0];
  if (!tbs || !Array.isArray(tbs.value)) throw new Error('not an X.509 certificate');
  const fields = tbs.value;
  // version is [0] EXPLICIT and optional (absent for v1 certificates)
  let at = fields[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC && fields[0].type === 0 ? 1 : 0;
  const serial = fields[at++];
  at++; // signature AlgorithmIdentifier
  const issuer = fields[at++];
  const validity = fields[at++];
  const subject = fields[at++];
  at++; // subjectPublicKeyInfo
  const extensions = fields.slice(at).find((node) => node.tagClass === asn1.Class.CONTEXT_SPECIFIC && node.type === 3);
  if (serial?.type !== asn1.Type.INTEGER || !issuer || !subject || !Array.isArray(validity?.value)) {
    throw new Error('not an X.509 certificate');
  }

  const [notBefore, notAfter] = [readTime(validity.value[0]), readTime(validity.value[1])];
  const issuerAttributes = nameAttributes(issuer);
  const pick = (key: string) => issuerAttributes.filter((a) => a.key === key).map((a) => a.value);
  const issuerDN = distinguishedName(issuerAttributes);
  const organization = pick('O');
  const commonName = pick('CN');
  let serialHex = forge.util.bytesToHex(serial.value as string).toUpperCase();
  if (serialHex.length > 2 && serialHex.startsWith('00')) serialHex = serialHex.slice(2); // DER sign byte

  return {
    issuer: organization.length ? organization.join('+') : commonName.length ? commonName.join('+') : issuerDN,
    issuerDN,
    subject: distinguishedName(nameAttributes(subject)),
    subjectAltNames: subjectAltNames(extensions),
    validFrom: formatCertificateDate(notBefore),
    expiry: formatCertificateDate(notAfter),
    daysToExpiry: Math.floor((notAfter.getTime() - now) / DAY_MS),
    fingerprint256: colonHex(createHash('sha256').update(bytes).digest()),
    serialNumber: serialHex,
  };
}
