import { createPrivateKey, randomBytes, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  Pkcs10CertificateRequest,
  SubjectAlternativeNameExtension,
  X509Certificate as PeculiarCertificate,
  X509CertificateGenerator,
} from '@peculiar/x509';

/** Kubernetes' signer backdates certificates this much, for clocks a little behind the signer's. */
const BACKDATE_MS = 5 * 60 * 1000;

const CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
const CURVE_HASHES: Record<string, string> = { 'P-256': 'SHA-256', 'P-384': 'SHA-384', 'P-521': 'SHA-512' };

const KEY_USAGE_BITS: Readonly<Record<string, number>> = {
  signing: KeyUsageFlags.digitalSignature,
  'digital signature': KeyUsageFlags.digitalSignature,
  'content commitment': KeyUsageFlags.nonRepudiation,
  'key encipherment': KeyUsageFlags.keyEncipherment,
  'key agreement': KeyUsageFlags.keyAgreement,
  'data encipherment': KeyUsageFlags.dataEncipherment,
  'cert sign': KeyUsageFlags.keyCertSign,
  'crl sign': KeyUsageFlags.cRLSign,
  'encipher only': KeyUsageFlags.encipherOnly,
  'decipher only': KeyUsageFlags.decipherOnly,
};

const EXTENDED_USAGES: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  'server auth': ExtendedKeyUsage.serverAuth,
  'client auth': ExtendedKeyUsage.clientAuth,
  'code signing': ExtendedKeyUsage.codeSigning,
  'email protection': ExtendedKeyUsage.emailProtection,
  's/mime': ExtendedKeyUsage.emailProtection,
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: ExtendedKeyUsage.timeStamping,
  'ocsp signing': ExtendedKeyUsage.ocspSigning,
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

type SigningAlgorithm = webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams;

/** The WebCrypto algorithm a CA key signs with: ECDSA on its curve with the matching hash, or RSA PKCS#1 v1.5 with SHA-256. */
function signingAlgorithm(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'ec') {
    const namedCurve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (namedCurve === undefined) throw new Error(`unsupported CA key curve ${key.asymmetricKeyDetails?.namedCurve ?? '(unknown)'}`);
    return { name: 'ECDSA', namedCurve, hash: CURVE_HASHES[namedCurve] };
  }
  if (key.asymmetricKeyType === 'rsa') return { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  throw new Error(`unsupported CA key type ${key.asymmetricKeyType ?? '(unknown)'}: the CA key must be RSA or ECDSA`);
}

/**
 * A certificate authority that signs requests (Kubernetes' signer's authority): its certificate and
 * key, read from PEM files (`--cluster-signing-cert-file`, `--cluster-signing-key-file`).
 */
export class SigningAuthority {
  private constructor(
    readonly certPem: string,
    private readonly certificate: X509Certificate,
    private readonly key: webcrypto.CryptoKey,
    private readonly algorithm: SigningAlgorithm,
  ) {}

  static async fromPem(certPem: string, keyPem: string): Promise<SigningAuthority> {
    const certificate = new X509Certificate(certPem);
    const keyObject = createPrivateKey(keyPem);
    if (!certificate.checkPrivateKey(keyObject)) throw new Error('the signing key does not match the signing certificate');
    const algorithm = signingAlgorithm(keyObject);
    const der = keyObject.export({ format: 'der', type: 'pkcs8' });
    const key = await webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['sign']);
    return new SigningAuthority(certPem, certificate, key, algorithm);
  }

  static async fromFiles(certFile: string, keyFile: string): Promise<SigningAuthority> {
    let certPem: string;
    let keyPem: string;
    try {
      [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    } catch (error) {
      throw new Error(`error reading CA cert file or key file: ${(error as Error).message}`);
    }
    return SigningAuthority.fromPem(certPem, keyPem);
  }

  /** When the CA itself stops being valid: no certificate it signs outlives it. */
  get notAfter(): Date {
    return new Date(this.certificate.validTo);
  }

  /**
   * A certificate for the request's key and subject (names and alternative names as asked), with the
   * usages asked, valid from 5 minutes ago (as Kubernetes backdates) for `ttlMs`, never past the CA.
   */
  async sign(requestPem: string, usages: readonly string[], ttlMs: number, now: number = Date.now()): Promise<string> {
    const request = new Pkcs10CertificateRequest(requestPem);
    const issuer = new PeculiarCertificate(this.certificate.raw);
    const notAfter = Math.min(now + ttlMs, this.notAfter.getTime());
    // A short certificate is backdated less, so that most of its life lies ahead (Kubernetes' duration rules).
    const backdate = Math.min(BACKDATE_MS, Math.floor(ttlMs / 5));
    let keyUsage = 0;
    const extended: string[] = [];
    for (const usage of usages) {
      keyUsage |= KEY_USAGE_BITS[usage] ?? 0;
      const oid = EXTENDED_USAGES[usage];
      if (oid !== undefined && !extended.includes(oid)) extended.push(oid);
    }
    const extensions = [
      new BasicConstraintsExtension(false, undefined, true),
      ...(keyUsage !== 0 ? [new KeyUsagesExtension(keyUsage, true)] : []),
      ...(extended.length > 0 ? [new ExtendedKeyUsageExtension(extended)] : []),
      await AuthorityKeyIdentifierExtension.create(issuer),
      ...request.extensions.filter((e) => e instanceof SubjectAlternativeNameExtension),
    ];
    const certificate = await X509CertificateGenerator.create({
      // A positive 128-bit serial, as Go's signer draws it.
      serialNumber: `7${randomBytes(15).toString('hex')}`,
      subject: request.subjectName,
      issuer: issuer.subjectName,
      notBefore: new Date(now - backdate),
      notAfter: new Date(notAfter),
      publicKey: request.publicKey,
      signingKey: this.key,
      signingAlgorithm: this.algorithm,
      extensions,
    });
    return certificate.toString('pem') + '\n';
  }
}
