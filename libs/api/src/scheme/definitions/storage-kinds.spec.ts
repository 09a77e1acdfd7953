import { fieldErrorMessage } from '@svc/machinery';
import { compileKind } from '../../schema/compile-kind';
import type { ApiObject, KindDefinition } from '../kind-definition';
import { buildTable } from '../table';
import { persistentVolumeClaimDefinition } from './persistent-volume-claim-definition';
import { persistentVolumeDefinition } from './persistent-volume-definition';
import { podDefinition } from './pod-definition';
import {
  csiDriverDefinition,
  csiStorageCapacityDefinition,
  defaultStorageClassOf,
  storageClassDefinition,
  volumeAttachmentDefinition,
} from './storage-definitions';

// The storage kinds' defaults, validation, strategies and tables, against what Kubernetes 1.32 answers.

function created(def: KindDefinition, input: unknown): { object: ApiObject; errors: string[] } {
  const object = structuredClone(input) as ApiObject;
  def.strategy.prepareForCreate?.(object);
  compileKind(def).default(object);
  return { object, errors: compileKind(def).validate(object).map(fieldErrorMessage) };
}

function updated(def: KindDefinition, current: ApiObject, change: (o: ApiObject) => void): string[] {
  const next = structuredClone(current);
  change(next);
  def.strategy.prepareForUpdate?.(next, current);
  compileKind(def).default(next);
  return [...compileKind(def).validate(next, current), ...(def.strategy.validateUpdate?.(next, current) ?? [])].map(fieldErrorMessage);
}

const localVolume = (extra: Record<string, unknown> = {}) => ({
  metadata: { name: 'pv-1' },
  spec: {
    capacity: { storage: '5Gi' },
    accessModes: ['ReadWriteOnce'],
    local: { path: '/var/lib/svc/volumes/pv-1' },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } },
    ...extra,
  },
});

const claim = (spec: Record<string, unknown> = {}) => ({
  metadata: { name: 'data', namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local-path', ...spec },
});

/** A claim as the volume controller leaves it once bound to a volume of `capacity`. */
function boundClaim(request: string, capacity: string): ApiObject {
  const { object } = created(persistentVolumeClaimDefinition, claim({ resources: { requests: { storage: request } } }));
  (object.spec as Record<string, unknown>).volumeName = 'pv-1';
  object.status = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: capacity } };
  return object;
}

const setRequest = (storage: string) => (o: ApiObject) => {
  (o.spec as { resources: { requests: Record<string, string> } }).resources.requests.storage = storage;
};

describe('PersistentVolume', () => {
  it("starts Pending with Kubernetes' defaults", () => {
    const { object, errors } = created(persistentVolumeDefinition, localVolume());
    expect(errors).toEqual([]);
    expect(object.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
    expect(object.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
  });

  it('needs exactly one source, a storage capacity, an access mode, and node affinity for a local one', () => {
    expect(created(persistentVolumeDefinition, localVolume({ nodeAffinity: undefined })).errors).toEqual([
      'spec.nodeAffinity: Required value: Local volume requires node affinity',
    ]);
    expect(created(persistentVolumeDefinition, localVolume({ hostPath: { path: '/tmp/x' } })).errors).toEqual([
      'spec.local: Forbidden: may not specify more than 1 volume type',
    ]);
    expect(
      created(persistentVolumeDefinition, { metadata: { name: 'x' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }).errors,
    ).toEqual(['spec: Required value: must specify a volume type']);
    expect(created(persistentVolumeDefinition, localVolume({ capacity: { cpu: '1' }, accessModes: [] })).errors).toEqual([
      'spec.accessModes: Required value: at least 1 access mode is required',
      'spec.capacity: Unsupported value: {"cpu":"1"}: supported values: "storage"',
    ]);
    expect(created(persistentVolumeDefinition, localVolume({ accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] })).errors).toEqual([
      'spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    ]);
    expect(created(persistentVolumeDefinition, localVolume({ local: { path: 'relative/../x' } })).errors).toEqual([
      'spec.local.path: Invalid value: "relative/../x": must be an absolute path',
      'spec.local.path: Invalid value: "relative/../x": must not contain \'..\'',
    ]);
  });

  it('keeps its source, volume mode and node affinity; a VolumeAttributesClass is dropped (the feature is off in 1.32)', () => {
    const { object } = created(persistentVolumeDefinition, localVolume({ volumeAttributesClassName: 'gold' }));
    expect(object.spec).not.toHaveProperty('volumeAttributesClassName');
    const errors = updated(persistentVolumeDefinition, object, (o) => {
      (o.spec as Record<string, unknown>).local = { path: '/elsewhere' };
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation\n/);
    expect(
      updated(persistentVolumeDefinition, object, (o) => {
        (o.spec as Record<string, unknown>).persistentVolumeReclaimPolicy = 'Delete';
        (o.spec as Record<string, unknown>).claimRef = { namespace: 'default', name: 'data' };
      }),
    ).toEqual([]);
  });

  it('stamps a change of phase written through status', () => {
    const current = created(persistentVolumeDefinition, localVolume()).object;
    (current.status as Record<string, unknown>).lastPhaseTransitionTime = '2020-01-01T00:00:00Z';
    const next = { ...structuredClone(current), status: { phase: 'Available' } };
    persistentVolumeDefinition.strategy.status?.prepareForUpdate?.(next, current);
    expect(next.status).toEqual({ phase: 'Available', lastPhaseTransitionTime: expect.not.stringMatching(/^2020/) });
    const same = { ...structuredClone(current), status: { phase: 'Pending' } };
    persistentVolumeDefinition.strategy.status?.prepareForUpdate?.(same, current);
    expect(same.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: '2020-01-01T00:00:00Z' });
  });

  it("prints kubectl's columns", () => {
    const { object } = created(persistentVolumeDefinition, localVolume({ claimRef: { namespace: 'default', name: 'data' }, storageClassName: 'local-path' }));
    const table = buildTable(persistentVolumeDefinition, [object]);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Capacity',
      'Access Modes',
      'Reclaim Policy',
      'Status',
      'Claim',
      'StorageClass',
      'VolumeAttributesClass',
      'Reason',
      'Age',
      'VolumeMode',
    ]);
    expect(table.rows[0].cells).toEqual([
      'pv-1',
      '5Gi',
      'RWO',
      'Retain',
      'Pending',
      'default/data',
      'local-path',
      '<unset>',
      '',
      expect.any(String),
      'Filesystem',
    ]);
  });
});

describe('PersistentVolumeClaim', () => {
  it('starts Pending, and needs access modes and a storage request', () => {
    const { object, errors } = created(persistentVolumeClaimDefinition, claim());
    expect(errors).toEqual([]);
    expect(object.status).toEqual({ phase: 'Pending' });
    expect(object.spec).toMatchObject({ volumeMode: 'Filesystem' });
    expect(created(persistentVolumeClaimDefinition, claim({ accessModes: undefined, resources: {} })).errors).toEqual([
      'spec.accessModes: Required value: at least 1 access mode is required',
      'spec.resources[storage]: Required value',
    ]);
    expect(created(persistentVolumeClaimDefinition, claim({ accessModes: ['ReadWriteSometimes'] })).errors).toEqual([
      'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ]);
  });

  it('keeps its spec, but for the volume controller naming its volume once', () => {
    const { object } = created(persistentVolumeClaimDefinition, claim());
    expect(updated(persistentVolumeClaimDefinition, object, (o) => ((o.spec as Record<string, unknown>).volumeName = 'pv-1'))).toEqual([]);
    const errors = updated(persistentVolumeClaimDefinition, object, (o) => ((o.spec as Record<string, unknown>).accessModes = ['ReadWriteMany']));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims\n/);
    // An unbound claim's request is part of its fixed spec.
    expect(updated(persistentVolumeClaimDefinition, object, setRequest('2Gi'))[0]).toMatch(/^spec: Forbidden: spec is immutable/);
  });

  it('gives a claim of no class one once (the retroactive default), and never changes a class it has', () => {
    const { object } = created(persistentVolumeClaimDefinition, claim({ storageClassName: undefined }));
    expect(updated(persistentVolumeClaimDefinition, object, (o) => ((o.spec as Record<string, unknown>).storageClassName = 'local-path'))).toEqual([]);
    const classed = created(persistentVolumeClaimDefinition, claim()).object;
    expect(updated(persistentVolumeClaimDefinition, classed, (o) => ((o.spec as Record<string, unknown>).storageClassName = 'fast'))[0]).toMatch(
      /^spec: Forbidden: spec is immutable/,
    );
  });

  it('lets a bound claim grow, and shrink back only while above its status capacity', () => {
    expect(updated(persistentVolumeClaimDefinition, boundClaim('1Gi', '1Gi'), setRequest('2Gi'))).toEqual([]);
    expect(updated(persistentVolumeClaimDefinition, boundClaim('1Gi', '1Gi'), setRequest('512Mi'))).toEqual([
      'spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    ]);
    // A failed expansion to 10Gi of a 1Gi volume is undone by asking for less, down to above 1Gi.
    expect(updated(persistentVolumeClaimDefinition, boundClaim('10Gi', '1Gi'), setRequest('2Gi'))).toEqual([]);
    expect(updated(persistentVolumeClaimDefinition, boundClaim('10Gi', '1Gi'), setRequest('1Gi'))).toEqual([
      'spec.resources.requests.storage: Forbidden: field can not be less than status.capacity',
    ]);
  });

  it('drops a VolumeAttributesClass (the feature is off in 1.32)', () => {
    expect(created(persistentVolumeClaimDefinition, claim({ volumeAttributesClassName: 'gold' })).object.spec).not.toHaveProperty('volumeAttributesClassName');
  });

  it("prints kubectl's columns: the capacity and access modes once bound", () => {
    const pending = created(persistentVolumeClaimDefinition, claim()).object;
    const table = buildTable(persistentVolumeClaimDefinition, [pending, boundClaim('1Gi', '1Gi')]);
    expect(table.columnDefinitions.map((c) => c.name)).toEqual([
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'VolumeAttributesClass',
      'Age',
      'VolumeMode',
    ]);
    expect(table.rows[0].cells).toEqual(['data', 'Pending', '', '', '', 'local-path', '<unset>', expect.any(String), 'Filesystem']);
    expect(table.rows[1].cells.slice(0, 6)).toEqual(['data', 'Bound', 'pv-1', '1Gi', 'RWO', 'local-path']);
  });
});

describe('StorageClass', () => {
  const sc = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name }, provisioner: 'svc.io/local-path', ...extra });

  it("takes Kubernetes' defaults, and keeps what its volumes were made with", () => {
    const { object, errors } = created(storageClassDefinition, sc('standard'));
    expect(errors).toEqual([]);
    expect(object).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    expect(
      updated(storageClassDefinition, object, (o) => {
        o.provisioner = 'other.example.com/x';
        o.parameters = { a: 'b' };
        o.reclaimPolicy = 'Retain';
        o.volumeBindingMode = 'WaitForFirstConsumer';
      }),
    ).toEqual([
      'parameters: Forbidden: updates to parameters are forbidden.',
      'provisioner: Forbidden: updates to provisioner are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
      'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ]);
    expect(updated(storageClassDefinition, object, (o) => (o.allowVolumeExpansion = true))).toEqual([]);
    expect(created(storageClassDefinition, sc('bad', { reclaimPolicy: 'Recycle' })).errors).toEqual([
      'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    ]);
  });

  it('picks the newest of several defaults, then the first by name, as Kubernetes', () => {
    const at = (name: string, time: string, isDefault = true) => ({
      metadata: { name, creationTimestamp: time, annotations: { 'storageclass.kubernetes.io/is-default-class': String(isDefault) } },
    });
    expect(
      defaultStorageClassOf([at('old', '2026-01-01T00:00:00Z'), at('new', '2026-01-02T00:00:00Z'), at('newer', '2026-01-03T00:00:00Z', false)])?.metadata?.name,
    ).toBe('new');
    expect(defaultStorageClassOf([at('b', '2026-01-01T00:00:00Z'), at('a', '2026-01-01T00:00:00Z')])?.metadata?.name).toBe('a');
    expect(defaultStorageClassOf([at('x', '2026-01-01T00:00:00Z', false)])).toBeUndefined();
  });

  it('marks the default class by name, as kubectl prints it', () => {
    const object = created(
      storageClassDefinition,
      sc('local-path', { metadata: { name: 'local-path', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } }),
    ).object;
    expect(buildTable(storageClassDefinition, [object]).rows[0].cells).toEqual([
      'local-path (default)',
      'svc.io/local-path',
      'Delete',
      'Immediate',
      false,
      expect.any(String),
    ]);
  });
});

describe('the CSI kinds and VolumeAttachment', () => {
  it("default a CSIDriver as Kubernetes' SetDefaults_CSIDriver", () => {
    const { object, errors } = created(csiDriverDefinition, { metadata: { name: 'hostpath.csi.example.com' }, spec: {} });
    expect(errors).toEqual([]);
    expect(object.spec).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      requiresRepublish: false,
      seLinuxMount: false,
      volumeLifecycleModes: ['Persistent'],
    });
    // Kubernetes' path names the field attachedRequired.
    expect(updated(csiDriverDefinition, object, (o) => ((o.spec as Record<string, unknown>).attachRequired = false))).toEqual([
      'spec.attachedRequired: Invalid value: false: field is immutable',
    ]);
    expect(updated(csiDriverDefinition, object, (o) => ((o.spec as Record<string, unknown>).podInfoOnMount = true))).toEqual([]);
  });

  it('refuse a VolumeAttachment of no source or two, and any change of its spec', () => {
    const va = (source: Record<string, unknown>) => ({ metadata: { name: 'va' }, spec: { attacher: 'hostpath.csi.example.com', nodeName: 'node-1', source } });
    expect(created(volumeAttachmentDefinition, va({})).errors).toEqual([
      'spec.source: Invalid value: {}: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ]);
    const { object, errors } = created(volumeAttachmentDefinition, va({ persistentVolumeName: 'pv-1' }));
    expect(errors).toEqual([]);
    expect(object.status).toEqual({ attached: false });
    expect(updated(volumeAttachmentDefinition, object, (o) => ((o.spec as Record<string, unknown>).nodeName = 'node-2'))[0]).toMatch(
      /^spec: Invalid value: .*field is immutable$/,
    );
  });

  it('keep a CSIStorageCapacity to its class', () => {
    const { object } = created(csiStorageCapacityDefinition, { metadata: { name: 'c', namespace: 'kube-system' }, storageClassName: 'fast', capacity: '1Ti' });
    expect(updated(csiStorageCapacityDefinition, object, (o) => (o.storageClassName = 'slow'))).toEqual([
      'storageClassName: Invalid value: "slow": field is immutable',
    ]);
    expect(buildTable(csiStorageCapacityDefinition, [object]).rows[0].cells.slice(0, 3)).toEqual(['c', 'fast', '1Ti']);
  });
});

describe('volume mounts of a pod', () => {
  const pod = (mount: Record<string, unknown>) => ({
    metadata: { name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'busybox:1.36', volumeMounts: [{ name: 'data', mountPath: '/data', ...mount }] }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  });

  it("refuse a subPath that leaves the volume, and subPath beside subPathExpr, with Kubernetes' messages", () => {
    expect(created(podDefinition, pod({ subPath: 'a/../../etc' })).errors).toContain(
      'spec.containers[0].volumeMounts.subPath: Invalid value: "a/../../etc": must not contain \'..\'',
    );
    expect(created(podDefinition, pod({ subPath: '/etc' })).errors).toContain(
      'spec.containers[0].volumeMounts.subPath: Invalid value: "/etc": must be a relative path',
    );
    expect(created(podDefinition, pod({ subPath: 'a', subPathExpr: '$(POD_NAME)' })).errors).toContain(
      'spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: "$(POD_NAME)": subPathExpr and subPath are mutually exclusive',
    );
    expect(created(podDefinition, pod({ subPath: 'a..b/c' })).errors).toEqual([]);
  });

  it("check a generic ephemeral volume's claim template as a claim's spec", () => {
    const ephemeral = (volumeClaimTemplate: unknown) => ({
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate } }] },
    });
    const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    expect(created(podDefinition, ephemeral({ metadata: { labels: { a: 'b' } }, spec })).errors).toEqual([]);
    expect(created(podDefinition, ephemeral({ spec: { ...spec, accessModes: [] } })).errors).toEqual([
      'spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required',
    ]);
    expect(created(podDefinition, { ...ephemeral(undefined) }).errors).toEqual(['spec.volumes[0].ephemeral.volumeClaimTemplate: Required value']);
  });
});
