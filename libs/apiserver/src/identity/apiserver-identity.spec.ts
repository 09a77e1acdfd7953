import { registryFixture, type RegistryFixture } from '../registry/testing/registry-fixture';
import { ApiServerIdentityLease, apiServerIdentity, IDENTITY_LEASE_LABEL, microTime } from './apiserver-identity';

describe('API server identity', () => {
  test('the identity is apiserver- and the base32 of the hash of host and component, as Kubernetes derives it', () => {
    // Computed independently: sha256 of uint16-length-prefixed "node-1" and "kube-apiserver", first 16 bytes, base32.
    expect(apiServerIdentity('node-1')).toBe('apiserver-lgabes5ywnaqeagh5dny4zlzs4');
    expect(apiServerIdentity('node-2')).not.toBe(apiServerIdentity('node-1'));
    expect(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe('2026-01-02T03:04:05.678000Z');
  });

  describe('the identity Lease', () => {
    let fx: RegistryFixture;
    let clock = Date.UTC(2026, 0, 1);
    beforeAll(async () => {
      fx = registryFixture();
      await fx.namespace('svc-system', 'default');
    });
    afterAll(() => fx.close());

    const identity = (host: string) =>
      new ApiServerIdentityLease({
        leases: fx.registry('leases', 'coordination.k8s.io'),
        namespace: 'svc-system',
        durationSeconds: 3600,
        renewIntervalSeconds: 10,
        host,
        now: () => clock,
      });

    test('each server holds a labelled Lease named by its identity, renewed in place, and deletes it when it stops', async () => {
      const a = identity('host-a');
      const b = identity('host-b');
      await a.start();
      await b.start();
      const leases = fx.registry('leases', 'coordination.k8s.io');
      const listed = await leases.list('svc-system', { labelSelector: `${IDENTITY_LEASE_LABEL}=kube-apiserver` });
      expect(listed.items.map((l) => l.metadata?.name).sort()).toEqual([apiServerIdentity('host-a'), apiServerIdentity('host-b')].sort());
      const lease = await leases.get('svc-system', a.name);
      expect(lease.metadata?.labels).toEqual({ [IDENTITY_LEASE_LABEL]: 'kube-apiserver', 'kubernetes.io/hostname': 'host-a' });
      expect(lease.spec).toMatchObject({ holderIdentity: a.holderIdentity, leaseDurationSeconds: 3600, renewTime: microTime(clock) });
      clock += 10_000;
      await a.renew();
      expect((await leases.get('svc-system', a.name)).spec).toMatchObject({
        renewTime: microTime(clock),
        acquireTime: (lease.spec as { acquireTime: string }).acquireTime,
      });
      await a.stop();
      await b.stop();
      expect((await leases.list('svc-system', { labelSelector: `${IDENTITY_LEASE_LABEL}=kube-apiserver` })).items).toHaveLength(0);
    });

    test('the collector deletes identity Leases not renewed within their duration, and nothing else', async () => {
      const live = identity('host-live');
      const dead = identity('host-dead');
      await dead.start();
      await dead.stop().catch(() => undefined);
      await dead.renew(); // written, then never renewed again
      clock += 3_600_000 + 1_000;
      await live.start();
      const leases = fx.registry('leases', 'coordination.k8s.io');
      await leases.create('svc-system', {
        value: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'other' }, spec: { renewTime: microTime(0), leaseDurationSeconds: 1 } },
      });
      expect(await live.collectGarbage()).toBe(1);
      const names = (await leases.list('svc-system')).items.map((l) => l.metadata?.name).sort();
      expect(names).toEqual([live.name, 'other'].sort());
      await live.stop();
    });
  });
});
