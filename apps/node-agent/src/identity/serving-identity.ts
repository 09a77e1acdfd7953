import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KUBELET_SERVING_SIGNER } from '@svc/api';
import type { Client } from '@svc/client';
import { errorMessage } from '@svc/machinery';
import { certificateLife, NODE_SERVING_USAGES, newKeyAndRequest, requestCertificate, rotationDeadline } from './certificate-request';

/** The serving certificate and key the certificates API issued, together (the kubelet's `kubelet-server-current.pem`). */
export const SERVING_CERTIFICATE_FILE = 'nodeagent-server-current.pem';
const RETRY_MIN_MS = 2_000;
const RETRY_MAX_MS = 5 * 60 * 1000;

export interface ServingPairPem {
  cert: string;
  key: string;
}

function splitPair(text: string): ServingPairPem | undefined {
  const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/.exec(text)?.[0];
  const key = /-----BEGIN (?:EC |RSA )?PRIVATE KEY-----[\s\S]+?-----END (?:EC |RSA )?PRIVATE KEY-----\n?/.exec(text)?.[0];
  return cert && key ? { cert, key } : undefined;
}

/**
 * `serverTLSBootstrap`: the kubelet's serving certificate manager. The agent asks the certificates API
 * for a serving certificate (signer kubelet-serving, CN system:node:<name>, O system:nodes, the node's
 * names and addresses); an administrator approves it (`kubectl certificate approve`); once issued it
 * is kept in the cert directory and handed to the server, and renewed at 70-90 % of its life. Until
 * then the server keeps the pair it started with.
 */
export class ServingCertificateManager {
  private readonly listeners: Array<(pair: ServingPairPem) => void> = [];
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly abort = new AbortController();
  private current?: ServingPairPem;

  constructor(
    private readonly client: Client,
    private readonly options: { nodeName: string; nodeIPs: readonly string[]; certDir: string; log: (message: string) => void },
  ) {}

  /** The issued pair kept from an earlier run, when it is still valid. */
  async stored(): Promise<ServingPairPem | undefined> {
    const path = join(this.options.certDir, SERVING_CERTIFICATE_FILE);
    if (!existsSync(path)) return undefined;
    const pair = splitPair(await readFile(path, 'utf8'));
    if (pair && certificateLife(pair.cert).notAfter > Date.now()) return pair;
    return undefined;
  }

  /** Calls `listener` with each pair issued from now on. */
  onCertificate(listener: (pair: ServingPairPem) => void): void {
    this.listeners.push(listener);
  }

  /** Starts from the kept pair (renewed when due) or asks for one at once. */
  async start(): Promise<void> {
    this.current = await this.stored();
    if (this.current) {
      for (const listener of this.listeners) listener(this.current);
      this.schedule(rotationDeadline(this.current.cert) - Date.now(), RETRY_MIN_MS);
    } else this.schedule(0, RETRY_MIN_MS);
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(delayMs: number, retryMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.renew(retryMs), Math.max(0, delayMs));
    this.timer.unref();
  }

  private async renew(retryMs: number): Promise<void> {
    try {
      const ips = this.options.nodeIPs.filter((ip) => ip !== '');
      const { keyPem, requestPem } = await newKeyAndRequest({
        commonName: `system:node:${this.options.nodeName}`,
        organizations: ['system:nodes'],
        dnsNames: [this.options.nodeName],
        ips,
      });
      // An administrator approves serving certificates: wait as long as it takes (the request is renewed daily).
      const { certPem, name } = await requestCertificate(
        this.client,
        { requestPem, signerName: KUBELET_SERVING_SIGNER, usages: NODE_SERVING_USAGES },
        { timeoutMs: 24 * 60 * 60 * 1000, log: this.options.log, signal: this.abort.signal },
      );
      if (this.stopped) return;
      const path = join(this.options.certDir, SERVING_CERTIFICATE_FILE);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(`${path}.tmp`, `${certPem.trim()}\n${keyPem}`, { mode: 0o600 });
      await rename(`${path}.tmp`, path);
      this.current = { cert: certPem, key: keyPem };
      for (const listener of this.listeners) listener(this.current);
      this.options.log(`serving certificate issued (${name}); valid until ${new Date(certificateLife(certPem).notAfter).toISOString()}`);
      this.schedule(rotationDeadline(certPem) - Date.now(), RETRY_MIN_MS);
    } catch (error) {
      if (this.stopped) return;
      this.options.log(`requesting the serving certificate: ${errorMessage(error)}; trying again in ${Math.round(retryMs / 1000)}s`);
      this.schedule(retryMs, Math.min(RETRY_MAX_MS, retryMs * 2));
    }
  }
}
