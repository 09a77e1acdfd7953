import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface TlsPair {
  cert: string;
  key: string;
}

/**
 * The certificate a process serves its probes and metrics with, as Kubernetes' components choose
 * it: the pair given (`--tls-cert-file`, `--tls-private-key-file`); else, with `--cert-dir`, the pair
 * `<name>.crt`/`<name>.key` there, made and written on first start and read on later ones; else a
 * self-signed one for localhost and 127.0.0.1, held in memory.
 */
export async function servingPair(files: { tlsCertFile?: string; tlsPrivateKeyFile?: string; certDir?: string }, commonName: string): Promise<TlsPair> {
  if (files.tlsCertFile && files.tlsPrivateKeyFile) {
    return { cert: readFileSync(files.tlsCertFile, 'utf8'), key: readFileSync(files.tlsPrivateKeyFile, 'utf8') };
  }
  if (!files.certDir) return selfSigned(commonName);
  const certFile = join(files.certDir, `${commonName}.crt`);
  const keyFile = join(files.certDir, `${commonName}.key`);
  const existing = readPair(certFile, keyFile);
  if (existing !== undefined) return existing;
  const pair = await selfSigned(commonName);
  mkdirSync(files.certDir, { recursive: true, mode: 0o755 });
  writeFileSync(certFile, pair.cert, { mode: 0o644 });
  writeFileSync(keyFile, pair.key, { mode: 0o600 });
  return pair;
}

function readPair(certFile: string, keyFile: string): TlsPair | undefined {
  try {
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function selfSigned(commonName: string): Promise<TlsPair> {
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
