import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { CustomResourceDefinition, MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig } from '@svc/api';
import { BUILTIN_RESOURCES, kubernetesGroupOf, type Client } from '@svc/client';
import { errorMessage, jsonNestingDepth, MAX_NESTING_DEPTH } from '@svc/machinery';
import { compare } from 'fast-json-patch';
import { resolveResource } from '../reconcile/resource-ref';
import type { ResourceObject } from '../resources/define-resource';
import {
  DEFAULT_CERTIFICATE_ROTATION,
  fileCertificate,
  secretCertificate,
  selfSignedCertificate,
  type CertificateRotation,
  type ServingCertificate,
} from './serving-certificate';
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
  /** Resource types whose versions convert by functions: each served as a CRD conversion webhook. */
  conversions?: readonly ConversionSource[];
  /**
   * The Service the API server reaches the webhooks through (a Deployment's replicas behind it). Set,
   * the configurations name this Service instead of a URL, every replica serves the same
   * certificate (see `certificate`), and the configurations are installed by the leader alone and
   * never removed by a stopping replica. Unset, the server runs in development mode: one process, its
   * own URL (`https://<host>:<port>`), configurations installed at start and removed at stop.
   */
  service?: WebhookService;
  /**
   * Where the serving certificate comes from with a `service`: a Secret (the default,
   * `<name>-webhook-certificate` in the Service's namespace; made by the first replica that finds
   * none, read by the others), or mounted files (cert-manager's `tls.crt`, `tls.key`, `ca.crt`).
   */
  certificate?: WebhookCertificate;
  /**
   * With a `service`: how often the certificate is read again (mounted files reloaded when they
   * change, the Secret's certificate taken up when another replica renewed it) and when the Secret's
   * serving certificate is renewed; see CertificateRotation.
   */
  rotation?: Partial<CertificateRotation>;
  /** Where a failed certificate check or re-install is told; the manager passes its logger. */
  logger?: { info(message: string): void; error(message: string, error?: unknown): void };
}

/** The Service in front of the replicas' webhook servers. */
export interface WebhookService {
  namespace: string;
  name: string;
  /** The Service's port; 443 by default, as Kubernetes defaults it. */
  port?: number;
}

/** A serving certificate kept in a Secret, or mounted as files. */
export type WebhookCertificate = { secret: { namespace: string; name: string } } | { certFile: string; keyFile: string; caFile?: string };

/** A resource type that converts its objects between versions (a `defineResource` result with conversion functions). */
export interface ConversionSource {
  /** The CustomResourceDefinition's name. */
  readonly name: string;
  convert(object: ResourceObject, apiVersion: string): ResourceObject;
}

/** The ConversionReview versions the server answers (their shapes are the same). */
const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** The webhook server's options as the manager takes them: the name defaults to `svc-operator`. */
export type ManagerWebhookOptions = Omit<WebhookServerOptions, 'name'> & { name?: string };

interface ServerSettings extends WebhookServerOptions {
  handlers: readonly object[];
}

/** The names the API server checks a service's webhook certificate against. */
function serviceNames(service: WebhookService): string[] {
  return [`${service.name}.${service.namespace}.svc`, `${service.name}.${service.namespace}.svc.cluster.local`];
}

/** The path a resource type's conversion webhook is served at. */
function conversionPath(crdName: string): string {
  return `/convert/${crdName}`;
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
 * The HTTPS server of a manager's admission webhooks: one path per decorated method, and the
 * Validating/MutatingWebhookConfigurations that point the API server at them (with the serving
 * certificate's CA as caBundle). With a `service` every replica serves the same certificate and the
 * configurations name the Service; in development mode they name this process's URL.
 */
export class WebhookServer {
  private server: Server | undefined;
  private readonly served: Served[];
  private caBundle = '';
  private hostPort = '';
  private installed = false;
  private serving: ServingCertificate | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> = Promise.resolve();

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

  /** Whether the configurations point at a Service (replicas) rather than at this process's URL (development mode). */
  get servesReplicas(): boolean {
    return this.options.service !== undefined;
  }

  async start(): Promise<number> {
    const host = this.options.host ?? '127.0.0.1';
    const certificate = await this.servingCertificate(host);
    this.serving = certificate;
    this.caBundle = Buffer.from(certificate.ca).toString('base64');
    const server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
      const served = this.served.find((s) => s.path === req.url);
      const conversion = this.options.conversions?.find((c) => conversionPath(c.name) === req.url);
      if (req.method !== 'POST' || (!served && !conversion)) {
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
        const text = Buffer.concat(chunks).toString('utf8');
        void (served ? this.review(served, text) : convertReview(conversion!, text)).then(
          (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
          (error: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(errorMessage(error)),
        );
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.options.port ?? 0, host, resolve));
    const port = (server.address() as AddressInfo).port;
    this.hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    if (this.options.service) {
      const timer = setInterval(() => {
        this.refreshing = this.refreshing.then(() => this.refreshCertificate());
      }, this.rotation.checkIntervalMs);
      timer.unref();
      this.refreshTimer = timer;
    }
    return port;
  }

  private get rotation(): CertificateRotation {
    return { ...DEFAULT_CERTIFICATE_ROTATION, ...this.options.rotation };
  }

  private servingCertificate(host: string): Promise<ServingCertificate> {
    const { service, certificate } = this.options;
    if (!service) return selfSignedCertificate([host]);
    if (certificate && 'certFile' in certificate) return Promise.resolve(fileCertificate(certificate));
    const secret = certificate?.secret ?? { namespace: service.namespace, name: `${this.options.name}-webhook-certificate` };
    return secretCertificate(this.client, secret, serviceNames(service), this.rotation);
  }

  /**
   * Reads the certificate again (controller-runtime's certwatcher, cert-controller's rotator): a new
   * pair is served from the next connection on, without a restart; a new CA becomes the caBundle, and
   * the configurations this process installed are installed again with it. A failed read keeps the
   * pair in use.
   */
  private async refreshCertificate(): Promise<void> {
    const server = this.server;
    const previous = this.serving;
    if (!server || !previous) return;
    let next: ServingCertificate;
    try {
      next = await this.servingCertificate(this.options.host ?? '127.0.0.1');
    } catch (error) {
      this.options.logger?.error('the webhook serving certificate could not be read; the one in use stays', error);
      return;
    }
    if (this.server !== server) return;
    if (next.cert !== previous.cert || next.key !== previous.key) {
      server.setSecureContext({ cert: next.cert, key: next.key });
      this.options.logger?.info('webhook serving certificate reloaded');
    }
    this.serving = next;
    if (next.ca === previous.ca) return;
    this.caBundle = Buffer.from(next.ca).toString('base64');
    if (!this.installed) return;
    try {
      await this.install();
      this.options.logger?.info('webhook configurations installed again with the new caBundle');
    } catch (error) {
      this.options.logger?.error('webhook configurations could not be installed with the new caBundle', error);
    }
  }

  /** Where a path of this server is reached: the Service's reference, or this process's URL in development mode. */
  private clientConfig(path: string): WebhookClientConfig {
    const service = this.options.service;
    if (service) return { service: { namespace: service.namespace, name: service.name, port: service.port ?? 443, path }, caBundle: this.caBundle };
    return { url: `https://${this.hostPort}${path}`, caBundle: this.caBundle };
  }

  /**
   * The `spec.conversion` that points the API server at this server's conversion webhook of a resource
   * type (its URL and this server's certificate as caBundle); only once started.
   */
  conversionOf(crdName: string): NonNullable<CustomResourceDefinition['spec']['conversion']> {
    if (!this.server) throw new Error('the webhook server is not started');
    if (!this.options.conversions?.some((c) => c.name === crdName)) throw new Error(`no conversion is served for ${crdName}`);
    return {
      strategy: 'Webhook',
      webhook: {
        clientConfig: this.clientConfig(conversionPath(crdName)),
        conversionReviewVersions: [...CONVERSION_REVIEW_VERSIONS],
      },
    };
  }

  /**
   * Stops serving. In development mode the configurations this process installed are removed too
   * (unless another process has installed its own since); with a `service` they stay, since the
   * other replicas still serve them.
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    clearInterval(this.refreshTimer);
    await this.refreshing;
    if (!this.options.service && this.installed) await this.uninstallOwn();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async uninstallOwn(): Promise<void> {
    const ownUrl = (url: string | undefined) => url?.startsWith(`https://${this.hostPort}/`) === true;
    const remove = async (
      resource: typeof BUILTIN_RESOURCES.validatingWebhookConfigurations | typeof BUILTIN_RESOURCES.mutatingWebhookConfigurations,
      name: string,
    ) => {
      const configs = this.client.resource(resource);
      try {
        const current = await configs.get(name);
        if (!(current.webhooks ?? []).every((w) => ownUrl(w.clientConfig.url))) return;
        await configs.delete(name, { preconditions: { resourceVersion: current.metadata?.resourceVersion, uid: current.metadata?.uid } });
      } catch {
        // Gone already, or changed since it was read: it is no longer this process's to remove.
      }
    };
    await Promise.all([
      remove(BUILTIN_RESOURCES.validatingWebhookConfigurations, `${this.options.name}-validating`),
      remove(BUILTIN_RESOURCES.mutatingWebhookConfigurations, `${this.options.name}-mutating`),
    ]);
  }

  /**
   * Applies the Validating/MutatingWebhookConfigurations that send the API server to these webhooks
   * (the manager calls it at start in development mode, else when it gains leadership). Idempotent:
   * a server-side apply of the same content.
   */
  async install(): Promise<void> {
    if (!this.server) throw new Error('the webhook server is not started');
    const webhook = (s: Served) => {
      const info = resolveResource(s.hook.resource, this.client.scheme);
      return {
        name: s.webhookName,
        clientConfig: this.clientConfig(s.path),
        rules: [
          {
            operations: [...(s.hook.options.operations ?? ['CREATE', 'UPDATE'])],
            // Kubernetes' name of a built-in group: what any cluster matches requests against.
            apiGroups: [kubernetesGroupOf(info.group)],
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
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: `${this.options.name}-validating` },
        webhooks: validating.map(webhook),
      };
      await this.client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations).apply(config, apply);
    }
    if (mutating.length > 0) {
      const config: MutatingWebhookConfiguration = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: `${this.options.name}-mutating` },
        webhooks: mutating.map((s) => ({ ...webhook(s), reinvocationPolicy: 'Never' as const })),
      };
      await this.client.resource(BUILTIN_RESOURCES.mutatingWebhookConfigurations).apply(config, apply);
    }
    this.installed = true;
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

/** One ConversionReview answered: each object through the resource type's conversion functions. */
async function convertReview(source: ConversionSource, text: string): Promise<unknown> {
  if (jsonNestingDepth(text) > MAX_NESTING_DEPTH) throw new Error('the review is nested too deeply');
  const body = JSON.parse(text) as { apiVersion?: unknown; request?: { uid?: unknown; desiredAPIVersion?: unknown; objects?: unknown } };
  const request = body.request;
  if (!request || typeof request.uid !== 'string' || typeof request.desiredAPIVersion !== 'string' || !Array.isArray(request.objects)) {
    throw new Error('not a ConversionReview request');
  }
  const apiVersion = typeof body.apiVersion === 'string' ? body.apiVersion : 'apiextensions.k8s.io/v1';
  const desired = request.desiredAPIVersion;
  const response = (fields: Record<string, unknown>) => ({ apiVersion, kind: 'ConversionReview', response: { uid: request.uid, ...fields } });
  try {
    const convertedObjects = (request.objects as ResourceObject[]).map((object) => source.convert(object, desired));
    return response({ convertedObjects, result: { status: 'Success' } });
  } catch (error) {
    return response({ convertedObjects: [], result: { status: 'Failure', message: errorMessage(error) } });
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
