import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KUBE_APISERVER_CLIENT_KUBELET_SIGNER } from '@svc/api';
import { Client, clientConfigFromOptions, type ClientConfig } from '@svc/client';
import { errorMessage } from '@svc/machinery';
import { stringify } from 'yaml';
import { certificateLife, NODE_CLIENT_USAGES, newKeyAndRequest, requestCertificate, rotationDeadline } from './certificate-request';

/** The client certificate and key of the node, together, as the kubelet keeps `kubelet-client-current.pem`. */
export const CLIENT_CERTIFICATE_FILE = 'nodeagent-client-current.pem';
const NODE_GROUP = 'system:nodes';
/** How long a bootstrap waits for its request to be approved and issued before giving up (the kubelet waits an hour). */
const BOOTSTRAP_WAIT_MS = 60 * 60 * 1000;
/** A failed renewal is tried again after this, doubling up to the cap (client-go's backoff, shortened). */
const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 5 * 60 * 1000;

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

/** The first certificate of a connection file's client certificate, and whether it is still valid. */
async function connectionFileUsable(path: string, now: number): Promise<boolean> {
  if (!existsSync(path)) return false;
  try {
    const config = await clientConfigFromOptions({ svcconfig: path });
    if (!config.clientCert) return true;
    const { notAfter } = certificateLife(config.clientCert);
    return notAfter > now;
  } catch {
    return false;
  }
}

/** The connection file of a node: the bootstrap file's server and CA, the node's certificate and key by path. */
function nodeConnectionFile(config: ClientConfig, certificatePath: string): string {
  const cluster: Record<string, unknown> = { server: config.server };
  if (config.ca) cluster['certificate-authority-data'] = Buffer.from(config.ca).toString('base64');
  if (config.tlsServerName) cluster['tls-server-name'] = config.tlsServerName;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster }],
    users: [{ name: 'default-auth', user: { 'client-certificate': certificatePath, 'client-key': certificatePath } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' } }],
    'current-context': 'default-context',
  });
}

export interface ClientIdentityOptions {
  nodeName: string;
  /** `--svcconfig`: the node's own connection file, written by the bootstrap. */
  svcconfig: string;
  /** `--bootstrap-kubeconfig`: the connection file with a bootstrap token. */
  bootstrapSvcconfig?: string;
  /** `--cert-dir`: where the node's certificate and key are kept. */
  certDir: string;
  log: (message: string) => void;
}

/**
 * The kubelet's TLS bootstrap (LoadClientCert): when the node's connection file is missing or its
 * certificate expired, a new key and a request for `system:node:<name>` in `system:nodes` are sent
 * with the bootstrap credentials, and once the certificate is issued the key and certificate are
 * written to the cert directory and the connection file to name them. Returns whether it bootstrapped.
 */
export async function bootstrapClientIdentity(options: ClientIdentityOptions): Promise<boolean> {
  if (!options.bootstrapSvcconfig) return false;
  if (await connectionFileUsable(options.svcconfig, Date.now())) return false;
  options.log(`no usable client certificate in ${options.svcconfig}: requesting one with ${options.bootstrapSvcconfig}`);
  const bootstrapConfig = await clientConfigFromOptions({ svcconfig: options.bootstrapSvcconfig });
  const client = new Client(bootstrapConfig);
  try {
    const { keyPem, requestPem } = await newKeyAndRequest({ commonName: `system:node:${options.nodeName}`, organizations: [NODE_GROUP] });
    const { certPem } = await requestCertificate(
      client,
      { requestPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: NODE_CLIENT_USAGES },
      { timeoutMs: BOOTSTRAP_WAIT_MS, log: options.log },
    );
    const certificatePath = join(options.certDir, CLIENT_CERTIFICATE_FILE);
    await writeAtomically(certificatePath, `${certPem.trim()}\n${keyPem}`, 0o600);
    await writeAtomically(options.svcconfig, nodeConnectionFile(bootstrapConfig, certificatePath), 0o600);
    options.log(`client certificate for system:node:${options.nodeName} issued; wrote ${options.svcconfig}`);
    return true;
  } finally {
    client.close();
  }
}

/**
 * `rotateCertificates`: client-go's certificate manager for the node's client certificate. At a
 * random point between 70 and 90 % of the certificate's life a new key is made and a request sent
 * as the node itself; once issued, the files are replaced and every client of the node switches to
 * it for new connections (requests in flight finish on the old one, which is still valid).
 */
export class ClientCertificateRotation {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly clients: readonly Client[],
    private readonly options: ClientIdentityOptions,
  ) {}

  /** Starts the rotation loop from the certificate the clients use now. */
  start(): void {
    const current = this.clients[0]?.rest.config.clientCert;
    if (!current) {
      this.options.log('rotateCertificates: the connection file has no client certificate to rotate');
      return;
    }
    this.schedule(rotationDeadline(current) - Date.now(), RETRY_MIN_MS);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number, retryMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.rotate(retryMs), Math.max(0, delayMs));
    this.timer.unref();
  }

  private async rotate(retryMs: number): Promise<void> {
    const client = this.clients[0];
    try {
      const { keyPem, requestPem } = await newKeyAndRequest({ commonName: `system:node:${this.options.nodeName}`, organizations: [NODE_GROUP] });
      const current = client.rest.config.clientCert ?? '';
      const { notAfter } = certificateLife(current);
      // Waiting longer than the current certificate lives is pointless: a new request is made after.
      const { certPem, name } = await requestCertificate(
        client,
        { requestPem, signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER, usages: NODE_CLIENT_USAGES },
        { timeoutMs: Math.max(30_000, notAfter - Date.now()), log: this.options.log, signal: this.abort.signal },
      );
      if (this.stopped) return;
      const certificatePath = join(this.options.certDir, CLIENT_CERTIFICATE_FILE);
      await writeAtomically(certificatePath, `${certPem.trim()}\n${keyPem}`, 0o600);
      // A connection file that named the certificate inline (not bootstrapped) is left as it was.
      const fileText = existsSync(this.options.svcconfig) ? await readFile(this.options.svcconfig, 'utf8') : '';
      if (!fileText.includes(certificatePath))
        this.options.log(`rotated certificate written to ${certificatePath}; ${this.options.svcconfig} does not name it`);
      for (const c of this.clients) c.rest.useClientCertificate(certPem, keyPem);
      const { notAfter: next } = certificateLife(certPem);
      this.options.log(`client certificate rotated (${name}); valid until ${new Date(next).toISOString()}`);
      this.schedule(rotationDeadline(certPem) - Date.now(), RETRY_MIN_MS);
    } catch (error) {
      if (this.stopped) return;
      this.options.log(`rotating the client certificate: ${errorMessage(error)}; trying again in ${Math.round(retryMs / 1000)}s`);
      this.schedule(retryMs, Math.min(RETRY_MAX_MS, retryMs * 2));
    }
  }
}
