import type { ServiceAccount } from '@svc/api';
import { resolveClientConfig, type Client, type ClientConfig } from '@svc/client';
import { errorMessage, isAlreadyExists, isNotFound } from '@svc/machinery';

/** How long a controller's token lives (Kubernetes' SA controller client builder asks for an hour). */
export const CONTROLLER_TOKEN_SECONDS = 3600;
/** A token is renewed once this share of its life has gone. */
const RENEW_AT = 0.8;

interface TokenRequestAnswer {
  status?: { token?: string; expirationTimestamp?: string };
}

interface AccountToken {
  token?: string;
  renewAt: number;
  expiresAt: number;
  pending?: Promise<string>;
}

/**
 * The controllers' own identities (Kubernetes' SAControllerClientBuilder): for each account, the
 * ServiceAccount in `namespace` is made if missing and a token for it obtained with a TokenRequest,
 * through the manager's own connection; a client of the account renews the token before it expires.
 */
export class ServiceAccountCredentials {
  private readonly tokens = new Map<string, AccountToken>();

  constructor(
    /** The manager's own client: it may create ServiceAccounts and their tokens. */
    private readonly root: Client,
    private readonly namespace: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A connection as the account: the manager's server and CA, the account's renewed token instead
   * of the manager's credentials, and the account's name added to the user agent as client-go does.
   */
  clientConfig(account: string): ClientConfig {
    const base = resolveClientConfig(this.root.rest.config);
    return {
      server: base.server,
      ca: base.ca,
      insecureSkipTlsVerify: base.insecureSkipTlsVerify,
      tlsServerName: base.tlsServerName,
      qps: base.qps,
      burst: base.burst,
      timeoutMs: base.timeoutMs,
      contentType: base.contentType,
      maxRetries: base.maxRetries,
      maxRetryWaitMs: base.maxRetryWaitMs,
      userAgent: `${base.userAgent}/${account}`,
      tokenSource: () => this.token(account),
    };
  }

  /** The account's current token, obtained or renewed when due; a renewal that fails keeps a token still valid. */
  async token(account: string): Promise<string> {
    let entry = this.tokens.get(account);
    if (!entry) this.tokens.set(account, (entry = { renewAt: 0, expiresAt: 0 }));
    const now = this.now();
    if (entry.token && now < entry.renewAt) return entry.token;
    const current = entry;
    current.pending ??= this.request(account).finally(() => (current.pending = undefined));
    try {
      return await current.pending;
    } catch (error) {
      if (current.token && now < current.expiresAt) return current.token;
      throw error;
    }
  }

  private async request(account: string): Promise<string> {
    const name = `${this.namespace}/${account}`;
    try {
      await this.ensureAccount(account);
      const started = this.now();
      const answer = await this.root.serviceAccounts.createSubresource<Record<string, unknown>, TokenRequestAnswer>(
        account,
        'token',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: CONTROLLER_TOKEN_SECONDS } },
        { namespace: this.namespace },
      );
      const token = answer.status?.token;
      if (!token) throw new Error('the answer holds no token');
      const expiresAt = Date.parse(answer.status?.expirationTimestamp ?? '') || started + CONTROLLER_TOKEN_SECONDS * 1000;
      // Timed from this clock, so that a skew between the machines does not shorten or stretch the renewal.
      const lifetime = Math.max(0, Math.min(expiresAt - started, CONTROLLER_TOKEN_SECONDS * 1000));
      this.tokens.set(account, { token, renewAt: started + lifetime * RENEW_AT, expiresAt: started + lifetime });
      return token;
    } catch (error) {
      throw new Error(`cannot get a token for service account ${name}: ${errorMessage(error)}`);
    }
  }

  private async ensureAccount(account: string): Promise<void> {
    try {
      await this.root.serviceAccounts.get(account, { namespace: this.namespace });
      return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const object: ServiceAccount = { metadata: { name: account, namespace: this.namespace } };
    await this.root.serviceAccounts.create(object, { namespace: this.namespace }).catch((error: unknown) => {
      if (!isAlreadyExists(error)) throw error;
    });
  }
}
