import { builtinScheme, SYSTEM_PRIORITY_CLASSES, type ApiObject, type PriorityClass } from '@svc/api';
import { isStatusError } from '@svc/machinery';
import type { AdmissionAttributes } from './admission';
import { priorityAdmission, type PriorityClassLookup } from './priority';

const scheme = builtinScheme();
const pods = scheme.byResource({ group: '', version: 'v1', resource: 'pods' })!;
const priorityClasses = scheme.byResource({ group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses' })!;

function lookupOf(classes: PriorityClass[]): PriorityClassLookup {
  return { get: (name) => Promise.resolve(classes.find((c) => c.metadata?.name === name)), list: () => Promise.resolve(classes) };
}

const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({
  metadata: { name },
  value,
  preemptionPolicy: 'PreemptLowerPriority',
  ...extra,
});

async function refusal(promise: unknown): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (isStatusError(error)) return `${error.code} ${error.status.message}`;
    throw error;
  }
}

describe('the Priority admission plugin', () => {
  const createPod = (plugin: ReturnType<typeof priorityAdmission>, spec: Record<string, unknown>) => {
    const object: ApiObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
    const attributes: AdmissionAttributes = { operation: 'CREATE', definition: pods, namespace: 'ns', name: 'p', subresource: '', object, dryRun: false };
    return { run: () => plugin.admit!(attributes), spec: object.spec as Record<string, unknown> };
  };

  it('gives a pod the value and preemption policy of the class it names', async () => {
    const plugin = priorityAdmission(lookupOf([...SYSTEM_PRIORITY_CLASSES, pc('batch-low', 10, { preemptionPolicy: 'Never' })]));
    const low = createPod(plugin, { priorityClassName: 'batch-low' });
    await low.run();
    expect(low.spec).toMatchObject({ priorityClassName: 'batch-low', priority: 10, preemptionPolicy: 'Never' });
    const critical = createPod(plugin, { priorityClassName: 'system-cluster-critical' });
    await critical.run();
    expect(critical.spec).toMatchObject({ priority: 2000000000, preemptionPolicy: 'PreemptLowerPriority' });
  });

  it('gives a pod that names no class the global default, of the lowest value when a race made two', async () => {
    const none = createPod(priorityAdmission(lookupOf([pc('a', 5)])), {});
    await none.run();
    expect(none.spec).toMatchObject({ priority: 0, preemptionPolicy: 'PreemptLowerPriority' });
    expect(none.spec.priorityClassName).toBeUndefined();
    const plugin = priorityAdmission(lookupOf([pc('high', 100, { globalDefault: true }), pc('low', 50, { globalDefault: true, preemptionPolicy: 'Never' })]));
    const defaulted = createPod(plugin, {});
    await defaulted.run();
    expect(defaulted.spec).toMatchObject({ priorityClassName: 'low', priority: 50, preemptionPolicy: 'Never' });
  });

  it("refuses an unknown class, and a priority or preemption policy that is not the class's, in Kubernetes' words", async () => {
    const plugin = priorityAdmission(lookupOf([pc('batch-low', 10, { preemptionPolicy: 'Never' })]));
    expect(await refusal(createPod(plugin, { priorityClassName: 'gold' }).run())).toBe('403 pods "p" is forbidden: no PriorityClass with name gold was found');
    expect(await refusal(createPod(plugin, { priorityClassName: 'batch-low', priority: 7 }).run())).toBe(
      '403 pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 10 from the given PriorityClass name',
    );
    expect(await refusal(createPod(plugin, { priorityClassName: 'batch-low', priority: 10 }).run())).toBeUndefined();
    expect(await refusal(createPod(plugin, { priorityClassName: 'batch-low', preemptionPolicy: 'PreemptLowerPriority' }).run())).toBe(
      '403 pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
    );
  });

  it('keeps what the create set when an update leaves it out', async () => {
    const object: ApiObject = { metadata: { name: 'p' }, spec: { containers: [] } };
    await priorityAdmission(lookupOf([])).admit!({
      operation: 'UPDATE',
      definition: pods,
      namespace: 'ns',
      name: 'p',
      subresource: '',
      object,
      oldObject: { metadata: { name: 'p' }, spec: { priority: 10, preemptionPolicy: 'Never' } },
      dryRun: false,
    });
    expect(object.spec).toMatchObject({ priority: 10, preemptionPolicy: 'Never' });
  });

  it('lets one class at a time be the global default', async () => {
    const plugin = priorityAdmission(lookupOf([pc('standard', 100, { globalDefault: true })]));
    const write = (operation: 'CREATE' | 'UPDATE', name: string, globalDefault: boolean) =>
      plugin.validate!({ operation, definition: priorityClasses, namespace: '', name, subresource: '', object: pc(name, 1, { globalDefault }), dryRun: false });
    expect(await refusal(write('CREATE', 'other', true))).toBe(
      '403 priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass standard is already marked as default. Only one default can exist',
    );
    expect(await refusal(write('UPDATE', 'other', true))).toMatch(/already marked as default/);
    expect(await refusal(write('UPDATE', 'standard', true))).toBeUndefined();
    expect(await refusal(write('CREATE', 'other', false))).toBeUndefined();
  });
});
