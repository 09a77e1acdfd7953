import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '@svc/api';
import { BUILTIN_RESOURCES, type Client } from '@svc/client';
import { errorMessage, jsonNestingDepth, MAX_NESTING_DEPTH } from '@svc/machinery';
import { compare } from 'fast-json-patch';
import { generate } from 'selfsigned';
import { resolveResource } from '../reconcile/resource-ref';
import { admissionHooksOf, type AdmissionHook, type AdmissionInput, type WebhookOperation, type ValidationVerdict } from './admission-decorators';

/** Where the manager serves its admission webhooks. */
export interface WebhookServerOptions {
  /** Objects whose methods carry `@Validate` / `@Default` (the manager adds its reconcilers that carry some). */
  handlers?: readonly object[];
  /** The address the API server reaches this process at (a host name or IP); 127.0.0.1 by default. */
  host?: string;
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Names the registered configurations (`<name>-validating`, `<name>-mutating`) and their webhooks. */
  name: string;
}

/** The webhook server's options as the manager takes them: the name defaults to `svc-operator`. */
export type ManagerWebhookOptions = Omit<WebhookServerOptions, 'name'> & { name?: string };

interface ServerSettings extends WebhookServerOptions {
  handlers: readonly object[];
}

/** A review body above this is refused before it is parsed (the API server's own request limit). */
const MAX_REVIEW_BYTES = 3 * 1024 * 1024;
const FIELD_MANAGER = 'svc-runtime-webhooks';

interface Served {
  hook: AdmissionHook;
  handler: object;
  path: string;
  webhookName: string;
}

interface AdmissionReviewRequest {
  uid: string;
  operation: WebhookOperation;
  object?: unknown;
  oldObject?: unknown;
  namespace?: string;
  name?: string;
  dryRun?: boolean;
  userInfo?: AdmissionInput<unknown>['userInfo'];
}

/**
 * The HTTPS server of a manager's admission webhooks: a certificate generated for `host` at start, one
 * path per decorated method, and the Validating/MutatingWebhookConfigurations that point the API server
 * at them (with the certificate as caBundle), applied at start and deleted at stop.
 */
export class WebhookServer {
  private server: Server | undefined;
  private readonly served: Served[];
  private caBundle = '';

  constructor(
    private readonly client: Client,
    private readonly options: ServerSettings,
  ) {
    this.served = options.handlers.flatMap((handler) =>
      admissionHooksOf(handler).map((hook, i) => {
        const info = resolveResource(hook.resource, client.scheme);
        const id = `${hook.kind}-${info.resource}-${String(hook.method)}-${i}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
        // Webhook names are qualified: at least three DNS labels.
        return { hook, handler, path: `/${id}`, webhookName: `${id}.${options.name}.svc-runtime.io` };
      }),
    );
  }

  get size(): number {
    return this.served.length;
  }

  async start(): Promise<number> {
    const host = this.options.host ?? '127.0.0.1';
    const isIp = /^[\d.]+$/.test(host) || host.includes(':');
    const pems = await generate([{ name: 'commonName', value: host }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 365 * 24 * 3600 * 1000),
      extensions: [{ name: 'subjectAltName', altNames: [isIp ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }] }],
    });
    this.caBundle = Buffer.from(pems.cert).toString('base64');
    const server = createServer({ cert: pems.cert, key: pems.private }, (req, res) => {
      const served = this.served.find((s) => s.path === req.url);
      if (req.method !== 'POST' || !served) {
        res.writeHead(404).end();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_REVIEW_BYTES) {
          res.writeHead(413).end();
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (res.writableEnded) return;
        void this.review(served, Buffer.concat(chunks).toString('utf8')).then(
          (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
          (error: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(errorMessage(error)),
        );
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.options.port ?? 0, host, resolve));
    const port = (server.address() as AddressInfo).port;
    await this.register(host, port);
    return port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await Promise.all([
      this.client
        .resource(BUILTIN_RESOURCES.validatingWebhookConfigurations)
        .delete(`${this.options.name}-validating`)
        .catch(() => undefined),
      this.client
        .resource(BUILTIN_RESOURCES.mutatingWebhookConfigurations)
        .delete(`${this.options.name}-mutating`)
        .catch(() => undefined),
    ]);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async register(host: string, port: number): Promise<void> {
    const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    const webhook = (s: Served) => {
      const info = resolveResource(s.hook.resource, this.client.scheme);
      return {
        name: s.webhookName,
        clientConfig: { url: `https://${hostPort}${s.path}`, caBundle: this.caBundle },
        rules: [
          {
            operations: [...(s.hook.options.operations ?? ['CREATE', 'UPDATE'])],
            apiGroups: [info.group],
            apiVersions: [info.version],
            resources: [info.resource],
            scope: info.namespaced ? ('Namespaced' as const) : ('Cluster' as const),
          },
        ],
        failurePolicy: s.hook.options.failurePolicy ?? ('Fail' as const),
        sideEffects: 'None' as const,
        admissionReviewVersions: ['v1'],
        timeoutSeconds: s.hook.options.timeoutSeconds ?? 10,
      };
    };
    const validating = this.served.filter((s) => s.hook.kind === 'validate');
    const mutating = this.served.filter((s) => s.hook.kind === 'default');
    const apply = { fieldManager: FIELD_MANAGER, force: true };
    if (validating.length > 0) {
      const config: ValidatingWebhookConfiguration = {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: `${this.options.name}-validating` },
        webhooks: validating.map(webhook),
      };
      await this.client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations).apply(config, apply);
    }
    if (mutating.length > 0) {
      const config: MutatingWebhookConfiguration = {
        apiVersion: 'admissionregistration.svc.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: `${this.options.name}-mutating` },
        webhooks: mutating.map((s) => ({ ...webhook(s), reinvocationPolicy: 'Never' as const })),
      };
      await this.client.resource(BUILTIN_RESOURCES.mutatingWebhookConfigurations).apply(config, apply);
    }
  }

  /** One AdmissionReview answered: the method's verdict, or its changes as a JSON patch. */
  private async review(served: Served, text: string): Promise<unknown> {
    if (jsonNestingDepth(text) > MAX_NESTING_DEPTH) throw new Error('the review is nested too deeply');
    const body = JSON.parse(text) as unknown;
    const request = (body as { request?: AdmissionReviewRequest }).request;
    if (!request || typeof request.uid !== 'string') throw new Error('not an AdmissionReview request');
    const input: AdmissionInput<unknown> = {
      operation: request.operation,
      object: request.object ?? undefined,
      oldObject: request.oldObject ?? undefined,
      namespace: request.namespace,
      name: request.name,
      dryRun: request.dryRun === true,
      userInfo: request.userInfo ?? {},
    };
    const method = (served.handler as Record<string | symbol, unknown>)[served.hook.method] as (...args: unknown[]) => unknown;
    const response = (fields: Record<string, unknown>) => ({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: request.uid, ...fields },
    });
    try {
      if (served.hook.kind === 'validate') {
        const verdict = (await method.call(served.handler, input)) as ValidationVerdict;
        return response(verdictFields(verdict));
      }
      if (input.object === undefined) return response({ allowed: true });
      const original = input.object;
      const working = structuredClone<unknown>(original);
      const returned: unknown = await method.call(served.handler, working, input);
      const patch = compare(original as object, (returned ?? working) as object);
      if (patch.length === 0) return response({ allowed: true });
      return response({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
    } catch (error) {
      return response({ allowed: false, status: { code: 403, reason: 'Forbidden', message: errorMessage(error) } });
    }
  }
}

function verdictFields(verdict: ValidationVerdict): Record<string, unknown> {
  if (verdict === undefined || verdict === true) return { allowed: true };
  if (verdict === false) return { allowed: false, status: { code: 403, reason: 'Forbidden' } };
  if (typeof verdict === 'string') return { allowed: false, status: { code: 403, reason: 'Forbidden', message: verdict } };
  const fields: Record<string, unknown> = { allowed: verdict.allowed };
  if (!verdict.allowed) fields.status = { code: 403, reason: 'Forbidden', message: verdict.message ?? '' };
  if (verdict.warnings?.length) fields.warnings = verdict.warnings;
  return fields;
}
