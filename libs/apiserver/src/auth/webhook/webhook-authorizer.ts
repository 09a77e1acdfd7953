import { readFile } from 'node:fs/promises';
import { parseConnectionFile, type ClientConfig } from '@svc/client';
import { JsonPostError, kubeconfigTarget, postJson } from '../../webhook-client/post-json';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer, RuleResolver } from '../authorizer';

export interface WebhookAuthorizerOptions {
  /** From the kubeconfig-format `--authorization-webhook-config-file`: the first cluster is the webhook, the user its credentials. */
  client: ClientConfig;
  /** `--authorization-webhook-version`: the SubjectAccessReview version exchanged. */
  version: 'v1' | 'v1beta1';
  /** `--authorization-webhook-cache-authorized-ttl` in ms; 0 caches nothing. */
  authorizedTtlMs: number;
  /** `--authorization-webhook-cache-unauthorized-ttl` in ms; 0 caches nothing. */
  unauthorizedTtlMs: number;
  /** One attempt's deadline (Kubernetes' 30 s). */
  timeoutMs?: number;
  /** Waits between failed attempts (Kubernetes' webhook backoff: 0.5 s growing by 1.5, 5 attempts). */
  retryDelaysMs?: readonly number[];
}

/** The Webhook mode as the flags give it: the connection file still to be read. */
export interface WebhookModeOptions extends Omit<WebhookAuthorizerOptions, 'client'> {
  /** `--authorization-webhook-config-file`. */
  configFile: string;
}

/** Reads the kubeconfig-format connection file of the Webhook mode; a bad one is refused naming the flag. */
export async function loadWebhookAuthorizerOptions(mode: WebhookModeOptions): Promise<WebhookAuthorizerOptions> {
  const { configFile, ...rest } = mode;
  let text: string;
  try {
    text = await readFile(configFile, 'utf8');
  } catch (error) {
    throw new Error(`--authorization-webhook-config-file: cannot read ${configFile}: ${(error as Error).message}`);
  }
  let client: ClientConfig;
  try {
    client = await parseConnectionFile(text, configFile);
    const url = new URL(client.server);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`server ${client.server} is not an http(s) URL`);
  } catch (error) {
    throw new Error(`--authorization-webhook-config-file ${configFile}: ${(error as Error).message}`);
  }
  return { ...rest, client };
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRY_DELAYS_MS = [500, 750, 1125, 1688];
/** The largest answer read; a longer one is a failed call. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** Kubernetes' webhook authorizer cache holds this many answers. */
const MAX_CACHED = 10_000;

interface Answer {
  result: AuthorizationResult;
  expires: number;
}

/**
 * Kubernetes' Webhook authorization mode: each request is described in a SubjectAccessReview POSTed
 * to the configured service. `allowed` allows, `denied` denies (no later mode is asked), neither is no
 * opinion. Answers are cached by review for the authorized or unauthorized TTL. A webhook that cannot
 * be reached or answers nonsense, after its retries, has no opinion and reports the error: a later mode
 * may still allow, else the request fails with an internal error, as Kubernetes answers it.
 */
export class WebhookAuthorizer implements Authorizer, RuleResolver {
  readonly name = 'Webhook';
  private readonly cache = new Map<string, Answer>();
  private readonly url: URL;

  constructor(
    private readonly options: WebhookAuthorizerOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.url = new URL(options.client.server);
  }

  /** A webhook answers single questions only, so the rules it grants cannot be listed (Kubernetes' words). */
  rulesFor(): ReturnType<RuleResolver['rulesFor']> {
    return Promise.resolve({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: true,
      evaluationError: 'webhook authorizer does not support user rule resolution',
    });
  }

  async authorize(a: AuthorizationAttributes): Promise<AuthorizationResult> {
    const review = this.review(a);
    const key = JSON.stringify(review.spec);
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      if (cached.expires > this.now()) return cached.result;
      this.cache.delete(key);
    }
    let status: Record<string, unknown>;
    try {
      status = await this.post(review);
    } catch (error) {
      return { decision: 'noOpinion', reason: '', error: `webhook authorizer: ${(error as Error).message}` };
    }
    const reason = typeof status.reason === 'string' ? status.reason : '';
    const result: AuthorizationResult =
      status.allowed === true ? { decision: 'allow', reason } : status.denied === true ? { decision: 'deny', reason } : { decision: 'noOpinion', reason };
    const ttl = result.decision === 'allow' ? this.options.authorizedTtlMs : this.options.unauthorizedTtlMs;
    if (ttl > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, { result, expires: this.now() + ttl });
    }
    return result;
  }

  /** The SubjectAccessReview for the attributes, in the configured version's shape. */
  review(a: AuthorizationAttributes): { apiVersion: string; kind: string; spec: Record<string, unknown> } {
    const spec: Record<string, unknown> = { user: a.user.name };
    if (a.user.uid !== undefined) spec.uid = a.user.uid;
    // v1beta1 called the groups `group`.
    spec[this.options.version === 'v1' ? 'groups' : 'group'] = [...a.user.groups];
    if (a.user.extra !== undefined) spec.extra = Object.fromEntries(Object.entries(a.user.extra).map(([k, v]) => [k, [...v]]));
    if (a.isResourceRequest) {
      spec.resourceAttributes = {
        namespace: a.requestedNamespace ?? a.namespace,
        verb: a.verb,
        group: a.apiGroup,
        version: a.apiVersion,
        resource: a.resource,
        subresource: a.subresource,
        name: a.name,
      };
    } else {
      spec.nonResourceAttributes = { path: a.path, verb: a.verb };
    }
    return { apiVersion: `authorization.k8s.io/${this.options.version}`, kind: 'SubjectAccessReview', spec };
  }

  private async post(review: unknown): Promise<Record<string, unknown>> {
    const delays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(review);
      } catch (error) {
        const retryable = error instanceof JsonPostError ? error.retryable : true;
        if (!retryable || attempt >= delays.length) throw error;
        await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
      }
    }
  }

  private async attempt(review: unknown): Promise<Record<string, unknown>> {
    const answer = await postJson(kubeconfigTarget(this.url, this.options.client), review, {
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    const status = typeof answer === 'object' && answer !== null ? (answer as { status?: unknown }).status : undefined;
    if (typeof status !== 'object' || status === null || Array.isArray(status)) {
      throw new JsonPostError('the answer is not a SubjectAccessReview with a status', false);
    }
    return status as Record<string, unknown>;
  }
}
