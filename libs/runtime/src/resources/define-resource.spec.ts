import 'reflect-metadata';
import { Type } from '@sinclair/typebox';
import { startTestEnvironment, type TestEnvironment } from '@svc/apiserver/testing';
import { isInvalid } from '@svc/machinery';
import { parse } from 'yaml';
import { Reconciler } from '../decorators/reconciler.decorator';
import { createManager } from '../manager/create-manager';
import type { Manager } from '../manager/manager';
import type { Reconcile, ReconcileContext } from '../reconcile/reconcile';
import type { Request } from '../reconcile/request';
import { eventually } from '../testing';
import { defineResource, type ResourceType, type VersionType } from './define-resource';

const greetings = defineResource({
  group: 'demo.svc.io',
  kind: 'Greeting',
  shortNames: ['gr'],
  storage: 'v1',
  versions: {
    v1: {
      spec: Type.Object({
        message: Type.String({ minLength: 1 }),
        copies: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1 })),
      }),
      status: Type.Object({ configMaps: Type.Optional(Type.Integer()) }),
      printerColumns: [{ name: 'Message', type: 'string', jsonPath: '.spec.message' }],
      validations: [{ rule: "self.spec.message != 'forbidden'", message: 'that message is not allowed', fieldPath: '.spec.message' }],
    },
  },
});
type Greeting = ResourceType<typeof greetings>;

/** Two versions of one type: v1alpha1 said `text`, v1 says `message` and counts copies. */
const notes = defineResource({
  group: 'demo.svc.io',
  kind: 'Note',
  storage: 'v1',
  versions: {
    v1alpha1: { spec: Type.Object({ text: Type.String() }) },
    v1: { spec: Type.Object({ message: Type.String(), copies: Type.Integer() }) },
  },
  conversion: {
    v1alpha1: {
      toStorage: (old) => ({ ...old, spec: { message: old.spec.text, copies: 1 } }),
      fromStorage: (stored) => ({ ...stored, spec: { text: stored.spec.message } }),
    },
  },
});

let env: TestEnvironment;
const managers: Manager[] = [];
beforeAll(async () => {
  env = await startTestEnvironment();
});
afterAll(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
  await env?.stop();
});

describe('defineResource', () => {
  it('gives the type of each version: the spec and status of its schemas in Kubernetes’ envelope', () => {
    const ok: Greeting = { metadata: { name: 'g' }, spec: { message: 'hi' }, status: { configMaps: 2 } };
    // @ts-expect-error message is required by the schema
    const missing: Greeting = { spec: { copies: 2 } };
    // @ts-expect-error copies is an integer
    const wrong: Greeting = { spec: { message: 'hi', copies: 'two' } };
    const old: VersionType<typeof notes, 'v1alpha1'> = { spec: { text: 'hello' } };
    expect([ok, missing, wrong, old]).toHaveLength(4);
  });

  it('makes the CustomResourceDefinition: names, versions, schema, subresources and columns, as YAML too', () => {
    const crd = greetings.crd();
    expect(crd.metadata?.name).toBe('greetings.demo.svc.io');
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.spec.names).toEqual({ plural: 'greetings', singular: 'greeting', kind: 'Greeting', listKind: 'GreetingList', shortNames: ['gr'] });
    expect(crd.spec.versions).toHaveLength(1);
    const [v1] = crd.spec.versions;
    expect(v1).toMatchObject({ name: 'v1', served: true, storage: true, subresources: { status: {} } });
    expect(v1.additionalPrinterColumns).toEqual([{ name: 'Message', type: 'string', jsonPath: '.spec.message' }]);
    expect(v1.schema?.openAPIV3Schema).toEqual({
      type: 'object',
      required: ['spec'],
      properties: {
        spec: {
          type: 'object',
          required: ['message'],
          properties: { message: { type: 'string', minLength: 1 }, copies: { type: 'integer', minimum: 1, maximum: 5, default: 1 } },
        },
        status: { type: 'object', properties: { configMaps: { type: 'integer' } } },
      },
      'x-kubernetes-validations': [{ rule: "self.spec.message != 'forbidden'", message: 'that message is not allowed', fieldPath: '.spec.message' }],
    });
    expect(parse(greetings.yaml())).toEqual(crd);
    // What other clusters read carries Kubernetes' names only.
    for (const text of [greetings.yaml(), notes.yaml()]) expect(text).not.toMatch(/x-svc-/);
    expect(notes.crd().spec.versions.map((v) => [v.name, v.storage])).toEqual([
      ['v1alpha1', false],
      ['v1', true],
    ]);
  });

  it('converts between versions through the storage version, keeping the metadata', () => {
    const old = { apiVersion: 'demo.svc.io/v1alpha1', kind: 'Note', metadata: { name: 'n', labels: { a: 'b' } }, spec: { text: 'hello' } };
    const stored = notes.convert(old, 'demo.svc.io/v1');
    expect(stored).toEqual({ apiVersion: 'demo.svc.io/v1', kind: 'Note', metadata: old.metadata, spec: { message: 'hello', copies: 1 } });
    expect(notes.convert(stored, 'v1alpha1')).toEqual(old);
    expect(notes.convert(stored, 'v1')).toEqual(stored);
    expect(notes.convertsByFunction).toBe(true);
    expect(greetings.convertsByFunction).toBe(false);
    expect(() => notes.convert(old, 'v2')).toThrow(/no version "v2"/);
  });

  it('refuses a definition whose storage version is missing or whose versions lack a conversion', () => {
    expect(() => defineResource({ group: 'demo.svc.io', kind: 'Bad', storage: 'v2' as 'v1', versions: { v1: { spec: Type.Object({}) } } })).toThrow(
      /storage version v2/,
    );
    expect(() =>
      defineResource({
        group: 'demo.svc.io',
        kind: 'Bad',
        storage: 'v1',
        versions: { v1: { spec: Type.Object({}) }, v2: { spec: Type.Object({}) } },
        conversion: {} as never,
      }),
    ).toThrow(/version v2 has no conversion/);
  });

  it('is installed by a manager at start, served with its defaults and validation, and reconciled with its type', async () => {
    const seen: Greeting[] = [];
    @Reconciler({ for: greetings.resource, name: 'greeting-watcher' })
    class Watcher implements Reconcile {
      reconcile(request: Request, { cache }: ReconcileContext): void {
        const greeting = cache.get(greetings.resource, request);
        if (greeting) seen.push(greeting);
      }
    }
    const { manager } = createManager({
      clientConfig: env.clientConfig,
      reconcilers: [Watcher],
      resources: [greetings],
      logger: { info: () => undefined, error: () => undefined },
    });
    managers.push(manager);
    await manager.start();

    const client = env.client.resource(greetings.resource).inNamespace('default');
    const created = await client.create({ metadata: { name: 'hello' }, spec: { message: 'hi' } });
    expect(created.spec.copies).toBe(1);
    await eventually(() => expect(seen.map((g) => g.spec.message)).toContain('hi'));
    const refused = await client.create({ metadata: { name: 'too-many' }, spec: { message: 'hi', copies: 9 } }).catch((error: unknown) => error);
    expect(isInvalid(refused)).toBe(true);
    // Its CEL rule, evaluated by the API server.
    const forbidden = await client.create({ metadata: { name: 'forbidden' }, spec: { message: 'forbidden' } }).catch((error: unknown) => error);
    expect(isInvalid(forbidden)).toBe(true);
    expect(String((forbidden as Error).message)).toContain('that message is not allowed');

    // A second start (a new version of the operator) applies the definition again without conflict.
    const { manager: again } = createManager({ clientConfig: env.clientConfig, reconcilers: [], resources: [greetings] });
    managers.push(again);
    await again.start();
  });
});
