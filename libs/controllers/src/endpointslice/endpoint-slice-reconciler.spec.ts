import 'reflect-metadata';
import type { EndpointSlice, Pod } from '@svc/api';
import { eventually } from '@svc/runtime/testing';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { startControllers, type RunningControllers } from '../testing/start-controllers';
import { endpointsController } from '../endpoints';
import { endpointSliceController } from '.';

let env: TestEnvironment;
let running: RunningControllers;
let namespaceCount = 0;

async function freshNamespace(): Promise<string> {
  const name = `eps-${++namespaceCount}`;
  await env.client.namespaces.create({ metadata: { name } });
  return name;
}

/** A pod as a node agent reports it: running with an IP, Ready. */
async function runningPod(namespace: string, name: string, ip: string, spec: Partial<Pod['spec']> = {}): Promise<void> {
  await env.client.pods.create({ metadata: { name, namespace, labels: { app: 'db' } }, spec: { containers: [{ name: 'main', image: 'db' }], ...spec } });
  const lastTransitionTime = new Date().toISOString().slice(0, 19) + 'Z';
  await env.client.pods.patchStatus(
    name,
    { status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime }] } },
    'merge',
    { namespace },
  );
}

async function slicesOf(namespace: string, service: string): Promise<EndpointSlice[]> {
  return (await env.client.endpointSlices.list({ namespace, labelSelector: `kubernetes.io/service-name=${service}` })).items;
}

beforeAll(async () => {
  env = await startTestEnvironment();
  running = await startControllers(env, [endpointsController, endpointSliceController]);
});

afterAll(async () => {
  await running?.stop();
  await env?.stop();
});

describe('the EndpointSlice controller', () => {
  it("names an endpoint by its pod's hostname when the pod's subdomain is the Service, as a headless Service's DNS names need", async () => {
    const ns = await freshNamespace();
    await env.client.services.create({
      metadata: { name: 'db', namespace: ns },
      spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }] },
    });
    await runningPod(ns, 'db-0', '10.6.0.1', { hostname: 'db-0', subdomain: 'db' });
    await runningPod(ns, 'db-1', '10.6.0.2', { hostname: 'db-1', subdomain: 'other' });
    await runningPod(ns, 'db-2', '10.6.0.3', { subdomain: 'db' });
    await eventually(async () => {
      const [slice, ...more] = await slicesOf(ns, 'db');
      expect(more).toEqual([]);
      expect(slice.metadata?.labels).toMatchObject({
        'service.kubernetes.io/headless': '',
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      });
      expect((slice.endpoints ?? []).map((e) => [e.addresses[0], e.hostname ?? null, e.conditions?.ready]).sort()).toEqual([
        ['10.6.0.1', 'db-0', true],
        ['10.6.0.2', null, true],
        ['10.6.0.3', null, true],
      ]);
      expect(slice.ports).toEqual([{ name: 'pg', port: 5432, protocol: 'TCP' }]);
    });
  });

  it('writes no slice for a Service without a selector, whose server writes its own, and mirrors an Endpoints written for one', async () => {
    const ns = await freshNamespace();
    await env.client.services.create({ metadata: { name: 'dns', namespace: ns }, spec: { ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] } });
    const own: EndpointSlice = {
      metadata: { name: 'dns-own', namespace: ns, labels: { 'kubernetes.io/service-name': 'dns', 'endpointslice.kubernetes.io/managed-by': 'someone-else' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['192.0.2.53'], conditions: { ready: true } }],
      ports: [{ name: 'dns', port: 53, protocol: 'UDP' }],
    };
    await env.client.endpointSlices.create(own, { namespace: ns });
    // A Service with a selector and nothing selected does get the placeholder, so the first is not merely slow.
    await env.client.services.create({ metadata: { name: 'empty', namespace: ns }, spec: { selector: { app: 'none' }, ports: [{ port: 80 }] } });
    await eventually(async () => expect(await slicesOf(ns, 'empty')).toHaveLength(1));
    expect((await slicesOf(ns, 'dns')).map((s) => s.metadata?.name)).toEqual(['dns-own']);

    await env.client.endpoints.create(
      { metadata: { name: 'dns', namespace: ns }, subsets: [{ addresses: [{ ip: '192.0.2.54' }], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] }] },
      { namespace: ns },
    );
    await eventually(async () => {
      const mirrored = (await slicesOf(ns, 'dns')).filter((s) => s.metadata?.name !== 'dns-own');
      expect(mirrored.map((s) => s.endpoints?.map((e) => e.addresses[0]))).toEqual([['192.0.2.54']]);
    });
  });
});
