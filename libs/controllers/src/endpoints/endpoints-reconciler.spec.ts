import 'reflect-metadata';
import type { Endpoints, EndpointSubset, Pod, Service } from '@svc/api';
import { isNotFound } from '@svc/machinery';
import { CONTROLLER_METRIC_NAMES } from '@svc/runtime';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { endpointsController } from '.';

let env: TestEnvironment;
let running: RunningControllers;
let namespaceCount = 0;

/** A fresh namespace per test, so that no test sees another's pods. */
async function freshNamespace(): Promise<string> {
  const name = `ep-${++namespaceCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

type PodOptions = {
  labels?: Record<string, string>;
  ports?: Array<{ name?: string; containerPort: number }>;
  nodeName?: string;
  hostname?: string;
  subdomain?: string;
};

async function createPod(namespace: string, name: string, options: PodOptions = {}): Promise<Pod> {
  return env.client.pods.create({
    metadata: { name, namespace, labels: options.labels ?? { app: 'web' } },
    spec: {
      containers: [{ name: 'main', image: 'nginx', ...(options.ports ? { ports: options.ports } : {}) }],
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
      ...(options.hostname ? { hostname: options.hostname } : {}),
      ...(options.subdomain ? { subdomain: options.subdomain } : {}),
    },
  });
}

/** What a node agent would report: running with an IP, Ready or not. */
async function setStatus(namespace: string, name: string, ip: string | undefined, ready: boolean): Promise<Pod> {
  return env.client.pods.patchStatus(
    name,
    {
      status: {
        phase: 'Running',
        ...(ip ? { podIP: ip } : {}),
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date().toISOString().slice(0, 19) + 'Z' }],
      },
    },
    'merge',
    { namespace },
  );
}

async function createService(namespace: string, name: string, spec: Service['spec'], labels?: Record<string, string>): Promise<Service> {
  return env.client.services.create({ metadata: { name, namespace, ...(labels ? { labels } : {}) }, spec });
}

async function endpointsOf(namespace: string, name: string): Promise<Endpoints | undefined> {
  try {
    return await env.client.endpoints.get(name, { namespace });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Subsets reduced to what a test reads: pod names (ready / not ready) and ports. */
function summary(subsets: readonly EndpointSubset[] | undefined) {
  return (subsets ?? []).map((s) => ({
    ready: (s.addresses ?? []).map((a) => a.targetRef?.name).sort(),
    notReady: (s.notReadyAddresses ?? []).map((a) => a.targetRef?.name).sort(),
    ports: (s.ports ?? []).map((p) => `${p.name ?? ''}:${p.port}/${p.protocol}`),
  }));
}

async function successfulSyncs(): Promise<number> {
  const total = await running.manager.registry.getSingleMetric(CONTROLLER_METRIC_NAMES.reconcileTotal)?.get();
  return (total?.values ?? []).filter((v) => v.labels.controller === 'endpoints' && v.labels.result === 'success').reduce((n, v) => n + v.value, 0);
}

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [endpointsController]);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

describe('the endpoints controller', () => {
  it('lists ready pods in addresses and not-ready ones in notReadyAddresses, following readiness', async () => {
    const ns = await freshNamespace();
    const service = await createService(ns, 'web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] }, { tier: 'front' });
    const a = await createPod(ns, 'a', { nodeName: 'node-1' });
    await createPod(ns, 'b');
    await createPod(ns, 'no-ip');
    await createPod(ns, 'other', { labels: { app: 'db' } });
    await setStatus(ns, 'a', '10.0.0.1', true);
    await setStatus(ns, 'b', '10.0.0.2', false);
    await setStatus(ns, 'no-ip', undefined, true);
    await setStatus(ns, 'other', '10.0.0.9', true);

    const endpoints = await eventually(async () => {
      const ep = await endpointsOf(ns, 'web');
      expect(summary(ep?.subsets)).toEqual([{ ready: ['a'], notReady: ['b'], ports: ['http:8080/TCP'] }]);
      return ep!;
    });
    expect(endpoints.metadata?.labels).toEqual({ tier: 'front' });
    expect(endpoints.metadata?.ownerReferences).toBeUndefined();
    expect(endpoints.metadata?.annotations?.['endpoints.kubernetes.io/last-change-trigger-time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(endpoints.subsets?.[0].addresses).toEqual([
      { ip: '10.0.0.1', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: ns, name: 'a', uid: a.metadata!.uid } },
    ]);
    expect(service.metadata?.uid).toBeDefined();

    await setStatus(ns, 'b', '10.0.0.2', true);
    await eventually(async () =>
      expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual([{ ready: ['a', 'b'], notReady: [], ports: ['http:8080/TCP'] }]),
    );
    await setStatus(ns, 'a', '10.0.0.1', false);
    await eventually(async () =>
      expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual([{ ready: ['b'], notReady: ['a'], ports: ['http:8080/TCP'] }]),
    );

    // A pod being deleted leaves at once (a pod without a node is removed at once).
    await env.client.pods.delete('b', { namespace: ns });
    await eventually(async () => expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual([{ ready: [], notReady: ['a'], ports: ['http:8080/TCP'] }]));
    // A finished pod leaves too.
    await env.client.pods.patchStatus('a', { status: { phase: 'Succeeded' } }, 'merge', { namespace: ns });
    await eventually(async () => expect((await endpointsOf(ns, 'web'))?.subsets ?? []).toEqual([]));
  });

  it('moves pods in and out as their labels change, and follows the service labels and selector', async () => {
    const ns = await freshNamespace();
    await createService(ns, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    await createPod(ns, 'p1');
    await createPod(ns, 'p2');
    await setStatus(ns, 'p1', '10.1.0.1', true);
    await setStatus(ns, 'p2', '10.1.0.2', true);
    await eventually(async () => expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual([{ ready: ['p1', 'p2'], notReady: [], ports: [':80/TCP'] }]));

    await env.client.pods.patch('p2', { metadata: { labels: { app: 'other' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual([{ ready: ['p1'], notReady: [], ports: [':80/TCP'] }]));
    await env.client.pods.patch('p2', { metadata: { labels: { app: 'web' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual([{ ready: ['p1', 'p2'], notReady: [], ports: [':80/TCP'] }]));

    await env.client.services.patch('web', { metadata: { labels: { team: 'blue' } }, spec: { selector: { app: 'other' } } }, 'merge', { namespace: ns });
    await eventually(async () => {
      const ep = await endpointsOf(ns, 'web');
      expect(ep?.subsets ?? []).toEqual([]);
      expect(ep?.metadata?.labels).toEqual({ team: 'blue' });
    });
  });

  it('resolves a named target port per pod: pods with different numbers land in different subsets', async () => {
    const ns = await freshNamespace();
    await createService(ns, 'api', {
      selector: { app: 'web' },
      ports: [
        { name: 'http', port: 80, targetPort: 'web' },
        { name: 'metrics', port: 9090, targetPort: 9090 },
      ],
    });
    await createPod(ns, 'old', { ports: [{ name: 'web', containerPort: 8080 }] });
    await createPod(ns, 'new', { ports: [{ name: 'web', containerPort: 8081 }] });
    await createPod(ns, 'unnamed', { ports: [{ containerPort: 8080 }] });
    for (const [name, ip] of [
      ['old', '10.2.0.1'],
      ['new', '10.2.0.2'],
      ['unnamed', '10.2.0.3'],
    ]) {
      await setStatus(ns, name, ip, true);
    }
    // Repacked as Kubernetes does: ports served by the same addresses share a subset. The pod
    // without a port named `web` is there for the numeric port only.
    await eventually(async () => {
      const subsets = summary((await endpointsOf(ns, 'api'))?.subsets);
      expect(subsets).toHaveLength(3);
      expect(subsets).toEqual(
        expect.arrayContaining([
          { ready: ['new', 'old', 'unnamed'], notReady: [], ports: ['metrics:9090/TCP'] },
          { ready: ['old'], notReady: [], ports: ['http:8080/TCP'] },
          { ready: ['new'], notReady: [], ports: ['http:8081/TCP'] },
        ]),
      );
    });
  });

  it('publishes not-ready pods as ready with publishNotReadyAddresses', async () => {
    const ns = await freshNamespace();
    await createService(ns, 'peers', { selector: { app: 'web' }, ports: [{ port: 7000 }], publishNotReadyAddresses: true });
    await createPod(ns, 'x');
    await createPod(ns, 'y');
    await setStatus(ns, 'x', '10.3.0.1', false);
    await setStatus(ns, 'y', '10.3.0.2', true);
    await eventually(async () =>
      expect(summary((await endpointsOf(ns, 'peers'))?.subsets)).toEqual([{ ready: ['x', 'y'], notReady: [], ports: [':7000/TCP'] }]),
    );
  });

  it('gives a headless service without ports its addresses, hostnames and the headless label', async () => {
    const ns = await freshNamespace();
    await createService(ns, 'db', { selector: { app: 'db' }, clusterIP: 'None' }, { app: 'db' });
    await createPod(ns, 'db-0', { labels: { app: 'db' }, hostname: 'db-0', subdomain: 'db' });
    await createPod(ns, 'db-1', { labels: { app: 'db' }, hostname: 'db-1', subdomain: 'elsewhere' });
    await setStatus(ns, 'db-0', '10.4.0.1', true);
    await setStatus(ns, 'db-1', '10.4.0.2', false);
    const endpoints = await eventually(async () => {
      const ep = await endpointsOf(ns, 'db');
      expect(summary(ep?.subsets)).toEqual([{ ready: ['db-0'], notReady: ['db-1'], ports: [] }]);
      return ep!;
    });
    expect(endpoints.metadata?.labels).toEqual({ app: 'db', 'service.kubernetes.io/headless': '' });
    expect(endpoints.subsets?.[0].ports).toBeUndefined();
    expect(endpoints.subsets?.[0].addresses?.[0].hostname).toBe('db-0');
    expect(endpoints.subsets?.[0].notReadyAddresses?.[0].hostname).toBeUndefined();
  });

  it('puts back an Endpoints changed or deleted by hand, and deletes it with its service', async () => {
    const ns = await freshNamespace();
    await createService(ns, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    await createPod(ns, 'p');
    await setStatus(ns, 'p', '10.5.0.1', true);
    const expected = [{ ready: ['p'], notReady: [], ports: [':80/TCP'] }];
    const first = await eventually(async () => {
      const ep = await endpointsOf(ns, 'web');
      expect(summary(ep?.subsets)).toEqual(expected);
      return ep!;
    });

    await env.client.endpoints.update({ ...first, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 1 }] }] }, { namespace: ns });
    await eventually(async () => expect(summary((await endpointsOf(ns, 'web'))?.subsets)).toEqual(expected));
    await env.client.endpoints.delete('web', { namespace: ns });
    await eventually(async () => {
      const ep = await endpointsOf(ns, 'web');
      expect(ep?.metadata?.uid).not.toBe(first.metadata?.uid);
      expect(summary(ep?.subsets)).toEqual(expected);
    });

    await env.client.services.delete('web', { namespace: ns });
    await eventually(async () => expect(await endpointsOf(ns, 'web')).toBeUndefined());
  });

  it('leaves the Endpoints of a service without selector to whoever writes them', async () => {
    const ns = await freshNamespace();
    // Written before its service, as users often do.
    const manual: Endpoints = {
      metadata: { name: 'external', namespace: ns, labels: { by: 'hand' } },
      subsets: [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ port: 5432 }] }],
    };
    const created = await env.client.endpoints.create(manual);
    await createService(ns, 'external', { ports: [{ port: 5432 }] });
    await createPod(ns, 'p');
    await setStatus(ns, 'p', '10.6.0.1', true);
    const before = await successfulSyncs();
    await env.client.services.patch('external', { metadata: { labels: { x: 'y' } } }, 'merge', { namespace: ns });
    await eventually(async () => expect(await successfulSyncs()).toBeGreaterThan(before));
    const after = await endpointsOf(ns, 'external');
    expect(after?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(after?.subsets).toEqual(manual.subsets!.map((s) => ({ ...s, ports: [{ port: 5432, protocol: 'TCP' }] })));
  });

  it('keeps one Endpoints of a thousand pods behind one service', async () => {
    const ns = await freshNamespace();
    await createService(ns, 'big', { selector: { app: 'big' }, ports: [{ port: 80 }] });
    const n = 1000;
    const names = Array.from({ length: n }, (_, i) => `big-${i}`);
    const inBatches = async (fn: (name: string, i: number) => Promise<unknown>) => {
      for (let i = 0; i < n; i += 50) await Promise.all(names.slice(i, i + 50).map((name, j) => fn(name, i + j)));
    };
    await inBatches((name) => createPod(ns, name, { labels: { app: 'big' } }));
    await inBatches((name, i) => setStatus(ns, name, `10.${7 + Math.floor(i / 250)}.${Math.floor(i / 250)}.${i % 250}`, i % 2 === 0));
    await eventually(async () => {
      const ep = await endpointsOf(ns, 'big');
      expect(ep?.subsets).toHaveLength(1);
      expect(ep?.subsets?.[0].addresses).toHaveLength(n / 2);
      expect(ep?.subsets?.[0].notReadyAddresses).toHaveLength(n / 2);
      expect(ep?.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity']).toBeUndefined();
    }, 120_000);
    // 2,000 writes and their reconciles: bounded, with room for a machine loaded by other work.
  }, 240_000);
});

describe('the endpoints controller with --endpoint-updates-batch-period', () => {
  it('folds the pod changes of one period into one update of the Endpoints', async () => {
    await running.stop();
    running = await startControllers(env, [endpointsController], ['--endpoint-updates-batch-period=1s']);
    const ns = await freshNamespace();
    await createService(ns, 'web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    for (const name of ['a', 'b', 'c']) await createPod(ns, name);
    await eventually(async () => expect(await endpointsOf(ns, 'web')).toBeDefined());
    // The pods' creations were queued for one period too: the changes below start a period of their own.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const initial = (await endpointsOf(ns, 'web'))!;
    const watch = await env.client.endpoints.watch({ namespace: ns, resourceVersion: initial.metadata!.resourceVersion });
    const updates: Array<{ at: number; ready: number }> = [];
    const following = (async () => {
      for await (const event of watch) {
        if (event.type === 'MODIFIED') updates.push({ at: performance.now(), ready: (event.object.subsets ?? []).flatMap((s) => s.addresses ?? []).length });
      }
    })();
    try {
      const started = performance.now();
      await setStatus(ns, 'a', '10.1.0.1', true);
      await setStatus(ns, 'b', '10.1.0.2', true);
      await setStatus(ns, 'c', '10.1.0.3', true);
      await eventually(() => expect(updates.at(-1)?.ready).toBe(3), 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(updates).toHaveLength(1);
      expect(updates[0].at - started).toBeGreaterThanOrEqual(900);
    } finally {
      watch.stop();
      await following.catch(() => undefined);
    }
  });
});
