import { builtinScheme, type ApiObject, type IngressClass, type KindDefinition } from '@svc/api';
import type { AdmissionAttributes, AdmissionOperation } from './admission';
import { defaultIngressClassAdmission } from './default-ingress-class';

const scheme = builtinScheme();
const ingresses = scheme.byResource({ group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' })!;

const cls = (name: string, isDefault: boolean, created = '2026-01-01T00:00:00Z'): IngressClass => ({
  metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : {} },
  spec: { controller: 'svc.io/ingress' },
});

function attributes(operation: AdmissionOperation, definition: KindDefinition, object: ApiObject, subresource = ''): AdmissionAttributes {
  return { operation, definition, namespace: 'default', name: object.metadata?.name ?? '', subresource, object, dryRun: false };
}

const ingress = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): ApiObject => ({
  metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
});

async function admitted(classes: IngressClass[], object: ApiObject, operation: AdmissionOperation = 'CREATE', subresource = ''): Promise<unknown> {
  await defaultIngressClassAdmission({ list: () => Promise.resolve(classes) }).admit?.(attributes(operation, ingresses, object, subresource));
  return (object.spec as Record<string, unknown>).ingressClassName;
}

describe('DefaultIngressClass', () => {
  it('gives a new Ingress of no class the default class, the newest of several', async () => {
    expect(await admitted([cls('plain', false), cls('svc', true)], ingress())).toBe('svc');
    expect(await admitted([cls('old', true, '2026-01-01T00:00:00Z'), cls('new', true, '2026-06-01T00:00:00Z')], ingress())).toBe('new');
  });

  it('leaves a class named in the spec or the old annotation, updates, and a cluster with no default', async () => {
    expect(await admitted([cls('svc', true)], ingress({ ingressClassName: 'other' }))).toBe('other');
    expect(await admitted([cls('svc', true)], ingress({}, { 'kubernetes.io/ingress.class': 'nginx' }))).toBeUndefined();
    expect(await admitted([cls('svc', true)], ingress(), 'UPDATE')).toBeUndefined();
    expect(await admitted([cls('svc', true)], ingress(), 'UPDATE', 'status')).toBeUndefined();
    expect(await admitted([cls('svc', false)], ingress())).toBeUndefined();
  });
});
