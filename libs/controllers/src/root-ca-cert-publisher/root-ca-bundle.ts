import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** What the root CA certificate publisher takes from the flags: the PEM bundle it writes (empty: none). */
export class RootCaBundle {
  constructor(readonly pem: string) {}
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The bundle to publish: `--root-ca-file` as written, after checking it holds certificates only
 * (Kubernetes refuses to start on a file that does not parse); without the flag, the CA the
 * process's own connection trusts, as Kubernetes falls back to; empty (nothing is published) when
 * that connection has no CA of its own.
 */
export async function loadRootCaBundle(file: string | undefined, connectionCa: string | undefined): Promise<string> {
  const text = file
    ? await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new Error(`--root-ca-file: cannot read ${file}: ${error.code ?? error.message}`);
      })
    : connectionCa;
  const source = file ? `--root-ca-file ${file}` : 'the connection file';
  if (!file && !text) {
    // A connection that trusts the system roots (or none) has no CA of its own to hand out.
    process.stderr.write('root-ca-cert-publisher: no --root-ca-file and no CA in the connection file; kube-root-ca.crt is not published\n');
    return '';
  }
  if (!text) throw new Error(`${source}: the file is empty`);
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error(`${source}: no PEM certificate in it`);
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw new Error(`${source}: a certificate in it does not parse`);
    }
  }
  return text;
}
