import type { Client } from '@svc/client';
import { errorMessage } from '@svc/machinery';

/** What a projected `serviceAccountToken` source asks for, for one pod. */
export interface TokenRequestKey {
  namespace: string;
  serviceAccount: string;
  /** Empty: the API server's own audiences. */
  audience: string;
  expirationSeconds: number;
  podName: string;
  podUid: string;
}

export interface IssuedToken {
  token: string;
  /** The lifetime the API server granted (it may extend the one asked for). */
  expirationSeconds: number;
  expiresAt: number;
}

/** Sends a TokenRequest; the default goes to `serviceaccounts/<name>/token` of the API server. */
export type TokenIssuer = (key: TokenRequestKey) => Promise<IssuedToken>;

/** A token is replaced once 80% of its lifetime has passed, and at the latest a day after it was issued. */
const REFRESH_FRACTION = 0.8;
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

interface Entry {
  key: TokenRequestKey;
  issued: IssuedToken;
  refreshAt: number;
  timer?: NodeJS.Timeout;
}

/** The TokenRequest of a key through the API server, bound to the pod. */
export function apiServerTokenIssuer(client: Client): TokenIssuer {
  return async (key) => {
    const answer = await client.rest.request<{ spec?: { expirationSeconds?: number }; status?: { token?: string; expirationTimestamp?: string } }>({
      method: 'POST',
      path: `/api/v1/namespaces/${encodeURIComponent(key.namespace)}/serviceaccounts/${encodeURIComponent(key.serviceAccount)}/token`,
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          audiences: key.audience ? [key.audience] : [],
          expirationSeconds: key.expirationSeconds,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: key.podName, uid: key.podUid },
        },
      },
    });
    const token = answer.status?.token;
    const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '');
    if (!token || Number.isNaN(expiresAt)) throw new Error('the TokenRequest answer holds no token or expiration time');
    return { token, expiresAt, expirationSeconds: answer.spec?.expirationSeconds ?? key.expirationSeconds };
  };
}

/**
 * The service account tokens of the pods' projected volumes (Kubernetes' token manager): one
 * TokenRequest per pod, account, audience and lifetime, kept until 80% of its lifetime has passed.
 * When a token is due, the pod is told (`refreshDue`), and its next volume set-up gets a new one.
 */
export class ServiceAccountTokenManager {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly issue: TokenIssuer,
    private readonly refreshDue: (podUid: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  private static id(key: TokenRequestKey): string {
    return JSON.stringify([key.podUid, key.namespace, key.serviceAccount, key.audience, key.expirationSeconds]);
  }

  /** The current token of the key: the kept one while it is fresh, a new one otherwise. */
  async token(key: TokenRequestKey): Promise<string> {
    const id = ServiceAccountTokenManager.id(key);
    const kept = this.entries.get(id);
    const now = this.now();
    if (kept && now < kept.refreshAt) return kept.issued.token;
    let issued: IssuedToken;
    try {
      issued = await this.issue(key);
    } catch (error) {
      // A token that has not expired yet still serves while the API server cannot be reached.
      if (kept && now < kept.issued.expiresAt) return kept.issued.token;
      throw new Error(`cannot get a token for service account ${key.namespace}/${key.serviceAccount}: ${errorMessage(error)}`);
    }
    if (kept?.timer) clearTimeout(kept.timer);
    const lifetimeMs = issued.expirationSeconds * 1000;
    const issuedAt = issued.expiresAt - lifetimeMs;
    const refreshAt = Math.min(issuedAt + lifetimeMs * REFRESH_FRACTION, issuedAt + MAX_AGE_MS);
    const entry: Entry = { key, issued, refreshAt };
    const delay = refreshAt - this.now();
    if (delay > 0 && delay < 2 ** 31 - 1) {
      entry.timer = setTimeout(() => this.refreshDue(key.podUid), delay);
      entry.timer.unref();
    }
    this.entries.set(id, entry);
    return issued.token;
  }

  /** When the kept token of the key is to be replaced; undefined when none is kept. */
  refreshAt(key: TokenRequestKey): number | undefined {
    return this.entries.get(ServiceAccountTokenManager.id(key))?.refreshAt;
  }

  /** Forgets the tokens of a pod that is gone. */
  forgetPod(podUid: string): void {
    for (const [id, entry] of this.entries) {
      if (entry.key.podUid !== podUid) continue;
      if (entry.timer) clearTimeout(entry.timer);
      this.entries.delete(id);
    }
  }

  stop(): void {
    for (const entry of this.entries.values()) if (entry.timer) clearTimeout(entry.timer);
    this.entries.clear();
  }
}
