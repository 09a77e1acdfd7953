// The scheduler on a slow client (5 requests a second) with short leader election timings: its lease
// renewals run on a client of their own, so they never wait behind its bindings and events, and it
// keeps its lease while the bindings queue for seconds.
import { Client, loadClientConfig } from '@svc/client';
import { SimulatedNodes } from '@svc/node-simulation';
import { eventually } from '@svc/runtime/testing';
import { startApiServerProcess, type ApiServerProcess } from './support/apiserver-process';
import { startSchedulerProcess } from './support/scheduler-process';

const PODS = 80;
// Short enough that a renewal queued behind the bindings and events (160 requests, 32 s at 5 a
// second) would lose the lease many times over; long enough that a renewal timer firing late on a
// loaded machine does not.
const LEASE_DURATION_MS = 8_000;
const SLOW_CLIENT = [
  '--svc-api-qps=5',
  '--svc-api-burst=5',
  '--leader-elect-lease-duration=8s',
  '--leader-elect-renew-deadline=6s',
  '--leader-elect-retry-period=1s',
  '--leader-elect-resource-name=scheduler-churn',
];

jest.setTimeout(180_000);

let apiserver: ApiServerProcess;
let client: Client;
let nodes: SimulatedNodes;

beforeAll(async () => {
  // No node lifecycle controller runs here to lift the not-ready taint new nodes get.
  apiserver = await startApiServerProcess({ args: ['--disable-admission-plugins=TaintNodesByCondition'] });
  client = new Client({ ...(await loadClientConfig({ svcconfig: apiserver.kubeconfig })), qps: -1 });
  nodes = await SimulatedNodes.start(client, [{ name: 'n1' }, { name: 'n2' }, { name: 'n3' }], { podReady: () => true });
});

afterAll(async () => {
  await nodes?.stopAll();
  client?.close();
  await apiserver?.stop();
});

describe('scheduler leader election under a saturated client', () => {
  it(`keeps its lease while ${PODS} bindings and their events queue at 5 requests a second`, async () => {
    const scheduler = await startSchedulerProcess(apiserver, SLOW_CLIENT);
    const leases = client.leases.inNamespace('svc-system');
    try {
      await eventually(() => expect(scheduler.stdout()).toContain('acquired lease'), 20_000);
      const acquired = await leases.get('scheduler-churn');
      const holder = acquired.spec?.holderIdentity;
      const changes: string[] = [];
      let last = Date.parse(acquired.spec?.renewTime ?? '');
      let longestGap = 0;
      const list = await leases.list({ fieldSelector: 'metadata.name=scheduler-churn' });
      const watch = await leases.watch({ fieldSelector: 'metadata.name=scheduler-churn', resourceVersion: list.metadata.resourceVersion });
      const following = (async () => {
        for await (const event of watch) {
          if (event.type === 'BOOKMARK') continue;
          const lease = event.object;
          if (event.type === 'DELETED') changes.push('deleted');
          else if (lease.spec?.holderIdentity !== holder) changes.push(`holder ${JSON.stringify(lease.spec?.holderIdentity)}`);
          const renewed = Date.parse(lease.spec?.renewTime ?? '');
          longestGap = Math.max(longestGap, renewed - last);
          last = renewed;
        }
      })();

      const started = Date.now();
      await Promise.all(
        Array.from({ length: PODS }, (_, i) =>
          client.pods.create({ metadata: { name: `p${i}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }),
        ),
      );
      await eventually(
        async () => {
          const pods = (await client.pods.list({ namespace: 'default' })).items;
          expect(pods.filter((p) => p.spec.nodeName)).toHaveLength(PODS);
        },
        120_000,
        250,
      );
      const window = Date.now() - started;
      watch.stop();
      await following.catch(() => undefined);

      // At 5 requests a second the bindings alone took most of the window.
      expect(window).toBeGreaterThan(((PODS / 5) * 1000) / 2);
      expect(changes).toEqual([]);
      expect(longestGap).toBeLessThan(LEASE_DURATION_MS);
      expect(scheduler.stdout() + scheduler.stderr()).not.toMatch(/failed to renew lease/);
      expect((await leases.get('scheduler-churn')).spec?.leaseTransitions).toBe(acquired.spec?.leaseTransitions);
    } finally {
      await scheduler.stop();
    }
  });
});
