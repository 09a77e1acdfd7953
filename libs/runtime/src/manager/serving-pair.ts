import { readFileSync } from 'node:fs';
import { generate } from 'selfsigned';

export interface TlsPair {
  cert: string;
  key: string;
}

/**
 * The certificate a process serves its probes and metrics with, as Kubernetes' components choose
 * it: the pair given (`--tls-cert-file`, `--tls-private-key-file`), else a self-signed one for
 * localhost and 127.0.0.1, held in memory.
 */
export async function servingPair(files: { tlsCertFile?: string; tlsPrivateKeyFile?: string }, commonName: string): Promise<TlsPair> {
  if (files.tlsCertFile && files.tlsPrivateKeyFile) {
    return { cert: readFileSync(files.tlsCertFile, 'utf8'), key: readFileSync(files.tlsPrivateKeyFile, 'utf8') };
  }
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
