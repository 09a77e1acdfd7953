import 'reflect-metadata';
import { builtinScheme, deploymentDefinition } from '@svc/api';
import { BUILTIN_RESOURCES } from '@svc/client';
import { controllerOwnerRequests } from '../controller/controller';
import { getReconcilerOptions, isReconcilerClass, Reconciler } from '../decorators/reconciler.decorator';
import { AnnotationChanged, anyOf, GenerationChanged, LabelChanged, onlyOn, passesAll } from './predicates';
import { requestFromKey, requestKey } from './request';
import { resolveResource, resourceId } from './resource-ref';

describe('@Reconciler', () => {
  it('records its options on the class and does nothing else', () => {
    const options = { for: BUILTIN_RESOURCES.deployments, owns: [BUILTIN_RESOURCES.replicaSets], concurrency: 3 };
    @Reconciler(options)
    class R {
      reconcile(): void {}
    }
    expect(getReconcilerOptions(R)).toBe(options);
    expect(getReconcilerOptions(new R())).toBe(options);
    expect(isReconcilerClass(R)).toBe(true);
    expect(isReconcilerClass(class {})).toBe(false);
    expect(Object.getOwnPropertyNames(R.prototype)).toEqual(['constructor', 'reconcile']);
  });
});

describe('requests', () => {
  it('maps to and from queue keys', () => {
    expect(requestKey({ namespace: 'ns', name: 'a' })).toBe('ns/a');
    expect(requestKey({ name: 'node-1' })).toBe('node-1');
    expect(requestFromKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(requestFromKey('node-1')).toEqual({ name: 'node-1' });
  });
});

describe('resource references', () => {
  const scheme = builtinScheme();
  it('resolves typed resources, kind definitions and apiVersion/kind to one id', () => {
    expect(resourceId(resolveResource(BUILTIN_RESOURCES.deployments, scheme))).toBe('apps/v1/deployments');
    expect(resourceId(resolveResource(deploymentDefinition, scheme))).toBe('apps/v1/deployments');
    expect(resourceId(resolveResource({ apiVersion: 'apps/v1', kind: 'Deployment' }, scheme))).toBe('apps/v1/deployments');
    expect(resourceId(resolveResource({ apiVersion: 'v1', kind: 'Pod' }, scheme))).toBe('v1/pods');
    expect(() => resolveResource({ apiVersion: 'example.com/v1', kind: 'Widget' }, scheme)).toThrow(/no kind Widget/);
  });
});

describe('predicates', () => {
  const obj = (generation: number, labels: Record<string, string> = {}, annotations: Record<string, string> = {}) => ({
    metadata: { name: 'a', generation, labels, annotations },
  });
  it('GenerationChanged passes creates, deletes and spec changes only', () => {
    expect(GenerationChanged({ type: 'create', object: obj(1) })).toBe(true);
    expect(GenerationChanged({ type: 'delete', object: obj(1) })).toBe(true);
    expect(GenerationChanged({ type: 'update', oldObject: obj(1), object: obj(1, { a: 'b' }) })).toBe(false);
    expect(GenerationChanged({ type: 'update', oldObject: obj(1), object: obj(2) })).toBe(true);
  });
  it('LabelChanged and AnnotationChanged compare their maps', () => {
    expect(LabelChanged({ type: 'update', oldObject: obj(1, { a: '1' }), object: obj(2, { a: '1' }) })).toBe(false);
    expect(LabelChanged({ type: 'update', oldObject: obj(1, { a: '1' }), object: obj(1, { a: '2' }) })).toBe(true);
    expect(AnnotationChanged({ type: 'update', oldObject: obj(1, {}, { x: '1' }), object: obj(1, {}, {}) })).toBe(true);
  });
  it('combine', () => {
    const update = { type: 'update' as const, oldObject: obj(1, { a: '1' }), object: obj(1, { a: '2' }) };
    expect(passesAll([GenerationChanged, LabelChanged], update)).toBe(false);
    expect(passesAll([anyOf(GenerationChanged, LabelChanged)], update)).toBe(true);
    expect(passesAll([onlyOn('create')], update)).toBe(false);
    expect(passesAll(undefined, update)).toBe(true);
  });
});

describe('controllerOwnerRequests', () => {
  const owned = (refs: object[]) => ({ metadata: { name: 'rs', namespace: 'ns', ownerReferences: refs } }) as never;
  it('maps an owned object to its controller owner of the right kind', () => {
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true };
    expect(controllerOwnerRequests(owned([ref]), 'apps', 'Deployment', true)).toEqual([{ namespace: 'ns', name: 'web' }]);
    expect(controllerOwnerRequests(owned([{ ...ref, controller: false }]), 'apps', 'Deployment', true)).toEqual([]);
    expect(controllerOwnerRequests(owned([{ ...ref, kind: 'StatefulSet' }]), 'apps', 'Deployment', true)).toEqual([]);
    expect(controllerOwnerRequests(owned([{ ...ref, apiVersion: 'v1' }]), 'apps', 'Deployment', true)).toEqual([]);
    expect(controllerOwnerRequests(owned([]), 'apps', 'Deployment', true)).toEqual([]);
  });
});
