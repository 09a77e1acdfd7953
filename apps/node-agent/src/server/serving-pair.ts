import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface ServingPair {
  cert: string;
  key: string;
}

/**
 * The serving certificate: the configured files, else a self-signed pair in the cert directory
 * (`nodeagent.crt`/`nodeagent.key`), made on first start and reused after, as Kubernetes' agent does.
 */
export async function servingPair(certDir: string, certFile: string, keyFile: string, nodeName: string, nodeIPs: readonly string[]): Promise<ServingPair> {
  if (certFile && keyFile) return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  const certPath = join(certDir, 'nodeagent.crt');
  const keyPath = join(certDir, 'nodeagent.key');
  try {
    return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
  } catch {
    // not made yet
  }
  const pems = await generate([{ name: 'commonName', value: `${nodeName}@${Math.floor(Date.now() / 1000)}` }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [{ type: 2 as const, value: nodeName }, { type: 2 as const, value: 'localhost' }, ...nodeIPs.map((ip) => ({ type: 7 as const, ip }))],
      },
    ],
  });
  await mkdir(certDir, { recursive: true, mode: 0o700 });
  await writeFile(keyPath, pems.private, { mode: 0o600 });
  await writeFile(certPath, pems.cert, { mode: 0o644 });
  return { cert: pems.cert, key: pems.private };
}
