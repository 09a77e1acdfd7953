import { createSecureContext, type SecureContext } from 'node:tls';
import type { Ingress, Secret } from '@svc/api';

/** The certificate pair of a kubernetes.io/tls Secret (tls.crt, tls.key), undefined when it has none. */
function pairOf(secret: Secret | undefined): { cert: string; key: string } | undefined {
  const data = secret?.data ?? {};
  const cert = data['tls.crt'];
  const key = data['tls.key'];
  if (!cert || !key) return undefined;
  return { cert: Buffer.from(cert, 'base64').toString('utf8'), key: Buffer.from(key, 'base64').toString('utf8') };
}

/**
 * The certificates of the served Ingresses by host (`spec.tls[].hosts`, wildcards too), chosen by the
 * server name a client asks for (SNI): the exact host first, then a wildcard one label up; the default
 * certificate for any other name. A Secret that is missing or holds no usable pair serves nothing, and
 * its hosts get the default certificate, as ingress-nginx does.
 */
export class TlsCertificates {
  private readonly exact = new Map<string, SecureContext>();
  private readonly wildcard = new Map<string, SecureContext>();

  constructor(
    ingresses: readonly Ingress[],
    secret: (namespace: string, name: string) => Secret | undefined,
    readonly fallback: SecureContext,
    log: (line: string) => void,
  ) {
    const contexts = new Map<string, SecureContext | undefined>();
    for (const ingress of ingresses) {
      const namespace = ingress.metadata?.namespace ?? '';
      for (const tls of ingress.spec?.tls ?? []) {
        if (!tls.secretName) continue;
        const id = `${namespace}/${tls.secretName}`;
        if (!contexts.has(id)) {
          const pair = pairOf(secret(namespace, tls.secretName));
          let context: SecureContext | undefined;
          try {
            context = pair === undefined ? undefined : createSecureContext(pair);
          } catch (error) {
            log(`secret ${id}: not a usable certificate and key: ${(error as Error).message}`);
          }
          contexts.set(id, context);
        }
        const context = contexts.get(id);
        if (context === undefined) continue;
        for (const host of tls.hosts ?? []) {
          const map = host.startsWith('*.') ? this.wildcard : this.exact;
          const key = host.startsWith('*.') ? host.slice(2) : host;
          if (!map.has(key)) map.set(key, context);
        }
      }
    }
  }

  /** The certificate for a server name. */
  contextFor(serverName: string): SecureContext {
    const name = serverName.toLowerCase();
    const own = this.exact.get(name);
    if (own !== undefined) return own;
    const dot = name.indexOf('.');
    return (dot > 0 ? this.wildcard.get(name.slice(dot + 1)) : undefined) ?? this.fallback;
  }
}
