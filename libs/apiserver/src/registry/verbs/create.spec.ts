import type { ApiObject } from '@svc/api';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission';
import { registryFixture, type RegistryFixture } from '../testing/registry-fixture';

interface Seen {
  uid?: string;
  creationTimestamp?: string;
  status?: unknown;
  imagePullPolicy?: unknown;
  namespace?: string;
}

function seenOf(a: AdmissionAttributes): Seen {
  const object = a.object as ApiObject & { spec?: { containers?: Array<{ imagePullPolicy?: unknown }> } };
  return {
    uid: object.metadata?.uid,
    creationTimestamp: object.metadata?.creationTimestamp,
    status: object.status,
    imagePullPolicy: object.spec?.containers?.[0]?.imagePullPolicy,
    namespace: object.metadata?.namespace,
  };
}

/**
 * A mutating plugin that records what it sees and gives every container of a pod a limit (as a
 * LimitRanger or a webhook would), and a validating one that records what it sees.
 */
function recorders(seen: { admit: Seen[]; validate: Seen[] }): AdmissionPlugin[] {
  return [
    {
      name: 'RecordAndLimit',
      admit(a) {
        if (a.definition.resource !== 'pods') return;
        seen.admit.push(seenOf(a));
        if (a.object?.metadata?.labels?.limit !== 'yes') return;
        const spec = (a.object as { spec: { containers: Array<{ resources?: unknown }> } }).spec;
        const amounts = { cpu: '100m', memory: '64Mi' };
        for (const c of spec.containers) c.resources = { requests: amounts, limits: amounts };
      },
    },
    {
      name: 'Record',
      validate(a) {
        if (a.definition.resource === 'pods') seen.validate.push(seenOf(a));
      },
    },
  ];
}

describe("a create's order (Kubernetes' create handler and store)", () => {
  let fx: RegistryFixture;
  const seen = { admit: [] as Seen[], validate: [] as Seen[] };

  beforeAll(async () => {
    fx = registryFixture({ admission: recorders(seen) });
    await fx.namespace('team');
  });
  afterAll(() => fx.close());

  beforeEach(() => {
    seen.admit.length = 0;
    seen.validate.length = 0;
  });

  const pod = (name: string, resources?: unknown): ApiObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { limit: resources === undefined ? 'yes' : 'no' } },
    spec: { containers: [{ name: 'c', image: 'busybox', ...(resources === undefined ? {} : { resources }) }] },
  });

  it('defaults before mutating admission, prepares after it, validates and admits last', async () => {
    const created = await fx.registry('pods').create('team', { value: pod('p') });
    // Mutating admission sees the decoded, defaulted object in its namespace, with no server-set fields yet.
    expect(seen.admit).toEqual([{ uid: undefined, creationTimestamp: undefined, status: undefined, imagePullPolicy: 'Always', namespace: 'team' }]);
    // The strategy's PrepareForCreate ran on the admitted pod: its class counts the limits admission gave it.
    expect(created.object.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
    // Validating admission sees the object as it will be stored.
    expect(seen.validate).toHaveLength(1);
    expect(seen.validate[0]).toMatchObject({ uid: created.object.metadata?.uid, creationTimestamp: created.object.metadata?.creationTimestamp });
    expect(seen.validate[0].status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });

  it("computes a pod's class on the defaulted pod: a limit without a request is the request", async () => {
    const created = await fx.registry('pods').create('team', { value: pod('limits-only', { limits: { cpu: '200m', memory: '32Mi' } }) });
    expect(created.object.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });

  it('takes the same order for a create by apply', async () => {
    const created = await fx.registry('pods').apply('team', 'q', Buffer.from(JSON.stringify(pod('q'))), { fieldManager: 'test' });
    expect(seen.admit).toEqual([expect.objectContaining({ uid: undefined, status: undefined, imagePullPolicy: 'Always' })]);
    expect(created.object.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });
});
