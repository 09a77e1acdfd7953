import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';

/**
 * One provider of an EncryptionConfiguration: what it writes starts with `prefix`, and it reads back
 * only what starts with that prefix. `context` is the storage key, authenticated by the AEAD providers
 * so that a ciphertext copied under another key does not decrypt.
 */
export interface ValueProvider {
  /** `k8s:enc:<provider>:v1:<key name>:`; empty for identity, which matches plain data. */
  readonly prefix: string;
  encrypt(plain: Buffer, context: string): Buffer;
  decrypt(sealed: Buffer, context: string): Buffer;
}

export const IDENTITY_PROVIDER: ValueProvider = {
  prefix: '',
  encrypt: (plain) => plain,
  decrypt: (sealed) => sealed,
};

/** AES-CBC with PKCS#7 padding and a random IV in front, as Kubernetes' aescbc (no authentication). */
export function aesCbcProvider(keyName: string, key: Buffer): ValueProvider {
  const algorithm = `aes-${key.length * 8}-cbc`;
  return {
    prefix: `k8s:enc:aescbc:v1:${keyName}:`,
    encrypt(plain) {
      const iv = randomBytes(16);
      const cipher = createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, cipher.update(plain), cipher.final()]);
    },
    decrypt(sealed) {
      if (sealed.length < 32 || sealed.length % 16 !== 0) throw new Error('the stored data is not a multiple of the AES block size');
      const decipher = createDecipheriv(algorithm, key, sealed.subarray(0, 16));
      return Buffer.concat([decipher.update(sealed.subarray(16)), decipher.final()]);
    },
  };
}

/** AES-GCM with a random 12-byte nonce in front and the 16-byte tag behind, the storage key authenticated. */
export function aesGcmProvider(keyName: string, key: Buffer): ValueProvider {
  const algorithm = `aes-${key.length * 8}-gcm` as 'aes-256-gcm';
  return {
    prefix: `k8s:enc:aesgcm:v1:${keyName}:`,
    encrypt(plain, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv(algorithm, key, nonce);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([nonce, body, cipher.getAuthTag()]);
    },
    decrypt(sealed, context) {
      if (sealed.length < 28) throw new Error('the stored data is too short for AES-GCM');
      const decipher = createDecipheriv(algorithm, key, sealed.subarray(0, 12));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
    },
  };
}

/** XSalsa20-Poly1305 (NaCl secretbox) with a random 24-byte nonce in front. */
export function secretboxProvider(keyName: string, key: Buffer): ValueProvider {
  const secret = new Uint8Array(key);
  return {
    prefix: `k8s:enc:secretbox:v1:${keyName}:`,
    encrypt(plain) {
      const nonce = randomBytes(nacl.secretbox.nonceLength);
      return Buffer.concat([nonce, nacl.secretbox(new Uint8Array(plain), new Uint8Array(nonce), secret)]);
    },
    decrypt(sealed) {
      const nonce = sealed.subarray(0, nacl.secretbox.nonceLength);
      const opened = nacl.secretbox.open(new Uint8Array(sealed.subarray(nonce.length)), new Uint8Array(nonce), secret);
      if (!opened) throw new Error('secretbox authentication failed');
      return Buffer.from(opened);
    },
  };
}
