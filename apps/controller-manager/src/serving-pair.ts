import { readFileSync } from 'node:fs';
import type { ControllerManagerOptions } from '@svc/options';
import { generate } from 'selfsigned';

export interface TlsPair {
  cert: string;
  key: string;
}

/** Like Kubernetes' controller manager: the given pair, else a self-signed one held in memory. */
export async function servingPair(o: ControllerManagerOptions): Promise<TlsPair> {
  if (o.tlsCertFile && o.tlsPrivateKeyFile) {
    return { cert: readFileSync(o.tlsCertFile, 'utf8'), key: readFileSync(o.tlsPrivateKeyFile, 'utf8') };
  }
  const pems = await generate([{ name: 'commonName', value: 'svc-controller-manager' }], {
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
