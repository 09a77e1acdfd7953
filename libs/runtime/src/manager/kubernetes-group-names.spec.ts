import 'reflect-metadata';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Type } from '@sinclair/typebox';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { BUILTIN_RESOURCES, Client, type ClientConfig } from '@svc/client';
import { kubernetesGroupName } from '@svc/machinery';
import { Reconciler } from '../decorators/reconciler.decorator';
import { Conditions, setCondition } from '../helpers/conditions';
import { updateStatusWithRetry } from '../helpers/update-status';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import { defineResource, type ResourceType } from '../resources/define-resource';
import { eventually } from '../testing';
import { Validate, type AdmissionInput } from '../webhooks/admission-decorators';
import { Manager } from './manager';

/**
 * A front for the test environment's API server that names the built-in groups as a Kubernetes
 * cluster does: `/apis/<x>.svc.io/...` of a built-in group is Kubernetes' 404 for a path it does not
 * serve, and `/apis` lists only the `*.k8s.io` names. Everything else reaches the real server.
 */
interface Front {
  config: ClientConfig;
  seen: string[];
  close(): Promise<void>;
}

const UNSERVED = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
});

const silent = { info: () => undefined, error: () => undefined };
let env: TestEnvironment;
const fronts: Front[] = [];
const managers: Manager[] = [];

beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
  await Promise.all(fronts.splice(0).map((f) => f.close()));
  await env?.stop();
});

function specGroupOf(path: string): string | undefined {
  const group = /^\/apis\/([^/?]+)/.exec(path)?.[1];
  return group && kubernetesGroupName(group) !== undefined ? group : undefined;
}

async function front(kubernetesNames: boolean): Promise<Front> {
  const c = env.clientConfig;
  const target = new URL(env.url);
  const seen: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    seen.push(`${req.method} ${path.split('?')[0]}`);
    if (kubernetesNames && specGroupOf(path)) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(UNSERVED);
      return;
    }
    const upstream = httpsRequest(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: req.method,
        headers: { ...req.headers, host: target.host },
        ca: c.ca,
        cert: c.clientCert,
        key: c.clientKey,
      },
      (answer) => {
        if (!(kubernetesNames && path.split('?')[0] === '/apis')) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const list = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { groups: Array<{ name: string }> };
          list.groups = list.groups.filter((g) => !specGroupOf(`/apis/${g.name}`));
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(list));
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { ca: _ca, clientCert: _cert, clientKey: _key, ...rest } = c;
  const made: Front = {
    config: { ...rest, server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  fronts.push(made);
  return made;
}

describe('a server that names the built-in groups as Kubernetes does', () => {
  it('is addressed by those names once a 404 showed it, after one look at /apis', async () => {
    const k8s = await front(true);
    const client = new Client(k8s.config);
    try {
      const leases = client.leases.inNamespace('default');
      const created = await leases.create({ metadata: { name: 'named' }, spec: { holderIdentity: 'a' } });
      expect(created.apiVersion).toBe('coordination.k8s.io/v1');
      await leases.update({ ...created, spec: { holderIdentity: 'b' } });
      await expect(leases.get('missing')).rejects.toMatchObject({ status: { code: 404, reason: 'NotFound' } });
      expect(k8s.seen).toEqual([
        'POST /apis/coordination.svc.io/v1/namespaces/default/leases',
        'GET /apis',
        'POST /apis/coordination.k8s.io/v1/namespaces/default/leases',
        'PUT /apis/coordination.k8s.io/v1/namespaces/default/leases/named',
        'GET /apis/coordination.k8s.io/v1/namespaces/default/leases/missing',
      ]);
      expect((await env.client.leases.inNamespace('default').get('named')).spec?.holderIdentity).toBe('b');
    } finally {
      client.close();
    }
  });

  it('costs nothing on a server that serves the specification’s names', async () => {
    const ours = await front(false);
    const client = new Client(ours.config);
    try {
      await expect(client.leases.inNamespace('default').get('missing')).rejects.toMatchObject({ status: { code: 404, reason: 'NotFound' } });
      await client.leases.inNamespace('default').create({ metadata: { name: 'ours' }, spec: {} });
      expect(ours.seen).toEqual([
        'GET /apis/coordination.svc.io/v1/namespaces/default/leases/missing',
        'POST /apis/coordination.svc.io/v1/namespaces/default/leases',
      ]);
    } finally {
      client.close();
    }
  });

  it('runs an operator there: leader election, its CRD, its webhook configuration, a reconcile with conditions', async () => {
    const sites = defineResource({
      group: 'names.example.com',
      kind: 'Site',
      storage: 'v1',
      versions: {
        v1: {
          spec: Type.Object({ image: Type.String() }),
          status: Type.Object({ observedGeneration: Type.Optional(Type.Integer()), conditions: Type.Optional(Conditions()) }),
        },
      },
    });
    type Site = ResourceType<typeof sites>;

    @Reconciler({ for: sites.resource })
    class SiteReconciler implements Reconcile {
      async reconcile(request: Request, { client, cache }: ReconcileContext): Promise<void> {
        const site = cache.get(sites.resource, request);
        if (!site) return;
        await updateStatusWithRetry(client.resource(sites.resource), site, (s: Site) => {
          const generation = s.metadata?.generation;
          s.status = {
            observedGeneration: generation,
            conditions: setCondition(s.status?.conditions, { type: 'Ready', status: 'True', reason: 'Reconciled', observedGeneration: generation }),
          };
        });
      }
    }
    class SiteWebhooks {
      @Validate(sites.resource)
      pinned({ object }: AdmissionInput<Site>): string | void {
        if (object?.spec.image.endsWith(':latest')) return 'pin the image';
      }
    }

    const k8s = await front(true);
    const manager = new Manager({
      clientConfig: k8s.config,
      logger: silent,
      resources: [sites],
      leaderElection: { resourceName: 'names-operator', resourceNamespace: 'default', identity: 'names-a' },
      webhooks: { name: 'names-operator', handlers: [new SiteWebhooks()], port: 0 },
    });
    manager.add(new SiteReconciler());
    managers.push(manager);
    await manager.start();
    await manager.elected;

    const client = env.client.resource(sites.resource).inNamespace('default');
    await client.create({ metadata: { name: 'web' }, spec: { image: 'httpd:2.4' } });
    await eventually(async () =>
      expect((await client.get('web')).status?.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'True', observedGeneration: 1 }),
    );
    // The API server takes up a new webhook configuration from its watch, as Kubernetes' does: a moment later.
    await eventually(() =>
      expect(client.create({ metadata: { name: 'latest' }, spec: { image: 'httpd:latest' } }, { dryRun: true })).rejects.toThrow(/pin the image/),
    );
    await expect(client.create({ metadata: { name: 'latest' }, spec: { image: 'httpd:latest' } })).rejects.toThrow(/pin the image/);
    expect((await env.client.leases.inNamespace('default').get('names-operator')).spec?.holderIdentity).toBe('names-a');
    expect(await env.client.resource(BUILTIN_RESOURCES.validatingWebhookConfigurations).get('names-operator-validating')).toBeTruthy();

    // Every built-in group it used was reached under its Kubernetes name; the spec's names only by
    // each client's first try (the manager's, its elector's), each followed by one look at /apis.
    const reached = (suffix: string) => k8s.seen.filter((line) => line.includes(`.${suffix}/`)).map((line) => /\/apis\/([^/]+)/.exec(line)?.[1]);
    expect(new Set(reached('k8s.io'))).toEqual(new Set(['apiextensions.k8s.io', 'coordination.k8s.io', 'admissionregistration.k8s.io']));
    expect(reached('svc.io').length).toBeLessThanOrEqual(2);
    expect(k8s.seen.filter((line) => line === 'GET /apis').length).toBeLessThanOrEqual(2);
  });
});
