import { createServer, type Server } from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinScheme, type ApiObject, type MutatingWebhook, type MutatingWebhookConfiguration, type ValidatingWebhookConfiguration } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import { ensureServingCertificates } from '../serving/serving-certificates';
import type { AdmissionAttributes } from './admission';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from './admission-webhooks';
import { MAX_WEBHOOK_RESPONSE_BYTES } from './webhook-call';

type Handler = (review: { request: { uid: string; object: ApiObject } }, respond: (body: unknown) => void) => void;

const configMaps = builtinScheme().byResource({ group: '', version: 'v1', resource: 'configmaps' })!;

function attributes(object: ApiObject, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return { operation: 'CREATE', definition: configMaps, namespace: 'default', name: 'x', subresource: '', object, dryRun: false, warnings: [], ...extra };
}

function patchOf(operations: unknown[]): string {
  return Buffer.from(JSON.stringify(operations)).toString('base64');
}

async function refusal(promise: Promise<unknown>): Promise<{ code: number; message: string } | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return { code: error.code, message: error.status.message ?? '' };
    throw error;
  }
}

describe('admission webhooks', () => {
  let server: Server;
  let dir: string;
  let caBundle: string;
  let base: string;
  const handlers = new Map<string, Handler>();
  const calls: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'webhook-spec-'));
    const certs = await ensureServingCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
    caBundle = Buffer.from(certs.caPem!).toString('base64');
    server = createServer({ key: certs.keyPem, cert: certs.certPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        calls.push(req.url ?? '');
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Parameters<Handler>[0];
        handlers.get(req.url ?? '')?.(review, (body) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(typeof body === 'string' ? body : JSON.stringify(body));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `https://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    handlers.clear();
    calls.length = 0;
  });

  const answer = (uid: string, response: Record<string, unknown>) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid, allowed: true, ...response },
  });

  function hook(name: string, path: string, extra: Partial<MutatingWebhook> = {}): MutatingWebhook {
    return {
      name,
      clientConfig: { url: `${base}${path}`, caBundle },
      rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: 1,
      ...extra,
    };
  }

  function mutating(...webhooks: MutatingWebhook[]) {
    const configuration: MutatingWebhookConfiguration = { metadata: { name: 'c' }, webhooks };
    return mutatingAdmissionWebhook({
      namespaces: async () => ({ metadata: { name: 'default' } }),
      mutating: async () => [configuration],
      validating: async () => [],
    });
  }

  function validating(...webhooks: MutatingWebhook[]) {
    const configuration: ValidatingWebhookConfiguration = { metadata: { name: 'c' }, webhooks };
    return validatingAdmissionWebhook({
      namespaces: async () => ({ metadata: { name: 'default' } }),
      mutating: async () => [],
      validating: async () => [configuration],
    });
  }

  it('applies JSON patches in order and reinvokes an IfNeeded webhook once a later one changed the object', async () => {
    handlers.set('/a', (review, respond) =>
      respond(
        answer(review.request.uid, {
          patchType: 'JSONPatch',
          patch: patchOf([{ op: 'add', path: '/data/a', value: String(Object.keys(review.request.object.data ?? {}).length) }]),
        }),
      ),
    );
    handlers.set('/b', (review, respond) =>
      respond(answer(review.request.uid, { patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/data/b', value: 'b' }]) })),
    );
    const object: ApiObject = { metadata: { name: 'x' }, data: {} };
    await mutating(hook('a', '/a', { reinvocationPolicy: 'IfNeeded' }), hook('b', '/b')).admit!(attributes(object));
    expect(calls).toEqual(['/a', '/b', '/a']);
    expect(object.data).toEqual({ a: '2', b: 'b' });
  });

  it('records each webhook’s audit annotations under its name, leaving out keys that make no qualified name', async () => {
    handlers.set('/audit', (review, respond) => respond(answer(review.request.uid, { auditAnnotations: { checked: 'yes', 'not a key': 'x', count: 3 } })));
    const audited = attributes({ metadata: { name: 'x' } }, { auditAnnotations: {} });
    await validating(hook('policy.example.com', '/audit')).validate!(audited);
    await mutating(hook('defaults.example.com', '/audit')).admit!(audited);
    expect(audited.auditAnnotations).toEqual({ 'policy.example.com/checked': 'yes', 'defaults.example.com/checked': 'yes' });
    // A request that is not audited gathers nothing.
    const plain = attributes({ metadata: { name: 'x' } });
    await validating(hook('policy.example.com', '/audit')).validate!(plain);
    expect(plain.auditAnnotations).toBeUndefined();
  });

  it('refuses a patch that changes the name, and one that is not JSONPatch', async () => {
    handlers.set('/rename', (review, respond) =>
      respond(answer(review.request.uid, { patchType: 'JSONPatch', patch: patchOf([{ op: 'replace', path: '/metadata/name', value: 'y' }]) })),
    );
    expect(await refusal(Promise.resolve(mutating(hook('rename', '/rename')).admit!(attributes({ metadata: { name: 'x' } }))))).toMatchObject({
      code: 500,
      message: expect.stringContaining('may not change the name'),
    });
    handlers.set('/merge', (review, respond) => respond(answer(review.request.uid, { patchType: 'MergePatch', patch: patchOf([]) })));
    expect((await refusal(Promise.resolve(mutating(hook('merge', '/merge')).admit!(attributes({ metadata: { name: 'x' } })))))?.message).toContain(
      'unsupported patch type',
    );
  });

  it('bounds the wait by timeoutSeconds and the answer by its size, and checks the uid', async () => {
    handlers.set('/silent', () => undefined);
    const started = Date.now();
    const slow = await refusal(Promise.resolve(validating(hook('silent', '/silent')).validate!(attributes({ metadata: { name: 'x' } }))));
    expect(slow?.message).toMatch(/failed calling webhook "silent": failed to call webhook: Post ".*\/silent": context deadline exceeded/);
    expect(Date.now() - started).toBeLessThan(10_000);
    handlers.set('/huge', (_review, respond) => respond('"' + 'x'.repeat(MAX_WEBHOOK_RESPONSE_BYTES + 10) + '"'));
    expect((await refusal(Promise.resolve(validating(hook('huge', '/huge')).validate!(attributes({ metadata: { name: 'x' } })))))?.message).toContain(
      'response body larger than',
    );
    handlers.set('/uid', (_review, respond) => respond(answer('other', {})));
    expect((await refusal(Promise.resolve(validating(hook('uid', '/uid')).validate!(attributes({ metadata: { name: 'x' } })))))?.message).toContain(
      'expected response.uid=',
    );
  });

  it('passes with a warning when a failing webhook is Ignore, and skips webhooks whose rules or selectors do not match', async () => {
    const attrs = attributes({ metadata: { name: 'x', labels: { app: 'a' } } });
    await validating(hook('down', '/nothing-here', { clientConfig: { url: 'https://127.0.0.1:1/x', caBundle }, failurePolicy: 'Ignore' })).validate!(attrs);
    expect(attrs.warnings?.[0]).toMatch(/^failed calling webhook "down" \(failurePolicy Ignore\)/);
    handlers.set('/deny', (review, respond) => respond(answer(review.request.uid, { allowed: false })));
    await validating(hook('other-resource', '/deny', { rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] }))
      .validate!(attrs);
    await validating(hook('other-labels', '/deny', { objectSelector: { matchLabels: { app: 'b' } } })).validate!(attrs);
    await validating(hook('deletes-only', '/deny', { rules: [{ operations: ['DELETE'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] })).validate!(
      attrs,
    );
    expect(calls).toEqual([]);
    const dryRun = attributes({ metadata: { name: 'x' } }, { dryRun: true });
    expect(await refusal(Promise.resolve(validating(hook('effects', '/deny', { sideEffects: 'Some' })).validate!(dryRun)))).toEqual({
      code: 400,
      message: 'admission webhook "effects" does not support dry run',
    });
    expect(await refusal(Promise.resolve(validating(hook('deny', '/deny')).validate!(attrs)))).toEqual({
      code: 403,
      message: 'admission webhook "deny" denied the request without explanation',
    });
  });
});
