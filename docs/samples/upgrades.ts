/** The how-to on a new version of a resource type (docs/operator-upgrades.md), run by test/docs-samples.e2e-spec.ts. */
import 'reflect-metadata';
import { Type } from '@sinclair/typebox';
import type { TestEnvironment } from '@svc/apiserver/testing';
import { isConflict } from '@svc/machinery';
import { type Client } from '@svc/client';
import { createManager, defineResource, installCustomResources } from '@svc/runtime';

// #region doc v1
export const widgetsV1 = defineResource({
  group: 'upgrades.svc.io',
  kind: 'Widget',
  storage: 'v1',
  versions: { v1: { spec: Type.Object({ color: Type.String(), size: Type.Integer() }) } },
});
// #endregion

// #region doc v2
export const widgets = defineResource({
  group: 'upgrades.svc.io',
  kind: 'Widget',
  storage: 'v2', // new objects are stored at v2; v1 is still served, converted
  versions: {
    v1: { spec: Type.Object({ color: Type.String(), size: Type.Integer() }) },
    v2: { spec: Type.Object({ paint: Type.Object({ color: Type.String() }), size: Type.Integer() }) },
  },
  conversion: {
    v1: {
      toStorage: (o) => ({ ...o, spec: { paint: { color: o.spec.color }, size: o.spec.size } }),
      fromStorage: (o) => ({ ...o, spec: { color: o.spec.paint.color, size: o.spec.size } }),
    },
  },
});
// #endregion

// #region doc migrate
/**
 * Stores every object of `type` anew at its storage version (a write of the same content is enough:
 * the server converts it to the storage version and writes it), then leaves only that version in the
 * CRD's `status.storedVersions`, after which older versions may be dropped from the type.
 */
export async function migrateStoredObjects(client: Client, type: typeof widgets): Promise<number> {
  const objects = client.resource(type.resource);
  const { items } = await objects.list();
  for (const item of items) {
    // A conflict means someone wrote it meanwhile, which stored it at the storage version already.
    await objects.update(item).catch((error: unknown) => {
      if (!isConflict(error)) throw error;
    });
  }
  const crd = await client.customResourceDefinitions.get(type.name);
  await client.customResourceDefinitions.updateStatus({ ...crd, status: { ...crd.status!, storedVersions: [type.storageVersion] } });
  return items.length;
}
// #endregion

export async function sample(env: TestEnvironment): Promise<string[]> {
  const seen: string[] = [];
  const silent = { info: () => undefined, error: () => undefined };
  // The operator's first release: v1 only, and an object written then.
  await installCustomResources(env.client, [widgetsV1]);
  await env.client.resource(widgetsV1.resource).create({ metadata: { name: 'old', namespace: 'default' }, spec: { color: 'red', size: 2 } });

  // #region doc running
  const { manager } = createManager({ clientConfig: env.clientConfig, resources: [widgets], logger: silent });
  await manager.start(); // applies the CRD with both versions and serves the conversion webhook
  // #endregion
  try {
    const old = await env.client.resource(widgets.resource).get('old', { namespace: 'default' });
    seen.push(`v2 paint ${old.spec.paint.color}`);
    const crd = await env.client.customResourceDefinitions.get(widgets.name);
    seen.push(`stored ${crd.status?.storedVersions?.join(',')}`);
    seen.push(`migrated ${await migrateStoredObjects(env.client, widgets)}`);
    const after = await env.client.customResourceDefinitions.get(widgets.name);
    seen.push(`stored ${after.status?.storedVersions?.join(',')}`);
  } finally {
    await manager.stop();
  }
  // With the conversion webhook gone, v2 still reads: the object is stored at v2 now.
  const stored = await env.client.resource(widgets.resource).get('old', { namespace: 'default' });
  seen.push(`after stop ${stored.spec.paint.color}`);
  return seen;
}
