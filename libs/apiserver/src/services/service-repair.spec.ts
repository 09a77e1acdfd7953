import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStorage, objectStorageKey, type Storage } from '@svc/storage';
import type { AllocationOwner } from './allocation-store';
import { serviceAllocators, serviceIpRanges } from './service-ranges';
import { repairServiceAllocations } from './service-repair';

// A real embedded store on a temporary directory: the records and the Services as a restarted
// server finds them.
let dir: string;
let storage: Storage;
const PREFIX = '/registry';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-repair-'));
  storage = await createStorage({ backend: 'embedded', dataDir: join(dir, 'data'), compactionIntervalMs: 0 });
});

afterEach(async () => {
  await storage.close();
  await rm(dir, { recursive: true, force: true });
});

function allocators() {
  return serviceAllocators(storage, PREFIX, serviceIpRanges('10.96.0.0/29'), { base: 30000, size: 4 });
}

async function storeService(name: string, uid: string, spec: Record<string, unknown>): Promise<void> {
  await storage.create(objectStorageKey({ prefix: PREFIX, group: '', resource: 'services', namespace: 'default', name }), {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', uid },
    spec,
  });
}

describe('service allocation repair', () => {
  it('records the values of stored Services that have no record, so none is handed out again', async () => {
    // Stored Services whose allocation records are missing (a store from before, a lost write).
    await storeService('a', 'uid-a', { type: 'NodePort', clusterIP: '10.96.0.2', clusterIPs: ['10.96.0.2'], ports: [{ port: 80, nodePort: 30001 }] });
    await storeService('b', 'uid-b', { clusterIP: '10.96.0.5', clusterIPs: ['10.96.0.5'] });
    await storeService('headless', 'uid-h', { clusterIP: 'None', clusterIPs: ['None'] });
    await storeService('outside', 'uid-o', { clusterIP: '10.1.0.1', clusterIPs: ['10.1.0.1'] });
    const first = allocators();
    const outcome = await repairServiceAllocations({ storage, storePrefix: PREFIX, allocators: first });
    expect(outcome.recorded).toBe(3);
    expect(outcome.problems).toEqual(['Cluster IP 10.1.0.1 of Service default/outside is not within the configured service ranges']);

    // What a restarted server hands out: every other address of the range, never a live Service's.
    const owner: AllocationOwner = { namespace: 'default', name: 'new', uid: 'uid-new' };
    const handed: string[] = [];
    for (let i = 0; i < 4; i++) handed.push(await first.ips[0].allocateNext(owner));
    expect(handed.sort()).toEqual(['10.96.0.1', '10.96.0.3', '10.96.0.4', '10.96.0.6']);
    await expect(first.ips[0].allocateNext(owner)).rejects.toThrow('range is full');
    await expect(first.nodePorts.allocate('30001', owner)).rejects.toThrow('provided port is already allocated');
  });

  it('frees records no stored Service holds once they are older than the grace period, and gives a live Service its value back', async () => {
    const a = allocators();
    const gone: AllocationOwner = { namespace: 'default', name: 'gone', uid: 'uid-gone' };
    await a.ips[0].allocate('10.96.0.3', gone);
    await a.nodePorts.allocate('30002', gone);
    await storeService('live', 'uid-live', { clusterIP: '10.96.0.4', clusterIPs: ['10.96.0.4'] });
    // A record held in the name of a Service that is gone, for the value a live Service has.
    await a.ips[0].allocate('10.96.0.4', gone);

    const young = await repairServiceAllocations({ storage, storePrefix: PREFIX, allocators: a });
    expect(young.released).toBe(0);
    const later = await repairServiceAllocations({ storage, storePrefix: PREFIX, allocators: a, now: () => Date.now() + 120_000 });
    expect(later.released).toBe(3);
    expect(await a.ips[0].isAllocated('10.96.0.3')).toBe(false);
    expect(await a.nodePorts.isAllocated('30002')).toBe(false);
    expect((await a.ips[0].list()).map((r) => [r.value, r.owner.uid])).toEqual([['10.96.0.4', 'uid-live']]);
  });
});
