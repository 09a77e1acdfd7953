import { builtinScheme, type ApiObject } from '@svc/api';
import type { OwnerReference } from '@svc/machinery';
import type { AuthorizationAttributes, Authorizer } from '../auth/authorizer';
import type { AdmissionAttributes } from './admission';
import { ownerReferencesPermissionEnforcement } from './owner-references-permission';

const scheme = builtinScheme();
const configmaps = scheme.byResource({ group: '', version: 'v1', resource: 'configmaps' })!;
const alice = { name: 'alice', groups: ['system:authenticated'] };

/** Allows what `allowed` lists as `verb resource/subresource`. */
function authorizer(allowed: string[], asked: AuthorizationAttributes[] = []): Authorizer {
  return {
    name: 'test',
    authorize: (a) => {
      asked.push(a);
      const key = `${a.verb} ${a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`}`;
      return { decision: allowed.includes(key) ? 'allow' : 'noOpinion', reason: '' };
    },
  };
}

const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u1' };
const cm = (refs: OwnerReference[]): ApiObject => ({ metadata: { name: 'c', namespace: 'team', ownerReferences: refs } });

function run(allowed: string[], object: ApiObject, oldObject?: ApiObject, asked?: AuthorizationAttributes[]): Promise<void> {
  const plugin = ownerReferencesPermissionEnforcement({ authorizer: () => authorizer(allowed, asked), scheme });
  const attributes: AdmissionAttributes = {
    operation: oldObject ? 'UPDATE' : 'CREATE',
    definition: configmaps,
    namespace: 'team',
    name: 'c',
    subresource: '',
    object,
    oldObject,
    dryRun: false,
    user: alice,
  };
  return Promise.resolve(plugin.validate!(attributes));
}

describe('OwnerReferencesPermissionEnforcement', () => {
  it('passes writes that leave ownerReferences alone', async () => {
    await expect(run([], cm([]))).resolves.toBeUndefined();
    await expect(run([], cm([owner]), cm([owner]))).resolves.toBeUndefined();
  });

  it('needs delete on the object to change its ownerReferences', async () => {
    await expect(run([], cm([owner]))).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining(`configmaps "c" is forbidden: cannot set an ownerRef on a resource you can't delete`),
    });
    await expect(run(['delete configmaps'], cm([owner]))).resolves.toBeUndefined();
  });

  it("needs update on the owner's finalizers to set blockOwnerDeletion", async () => {
    const blocking = { ...owner, blockOwnerDeletion: true };
    await expect(run(['delete configmaps'], cm([blocking]))).rejects.toMatchObject({
      message: expect.stringContaining("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on"),
    });
    const asked: AuthorizationAttributes[] = [];
    await expect(run(['delete configmaps', 'update deployments/finalizers'], cm([blocking]), undefined, asked)).resolves.toBeUndefined();
    expect(asked[1]).toMatchObject({ verb: 'update', apiGroup: 'apps', resource: 'deployments', subresource: 'finalizers', name: 'web', namespace: 'team' });
    // Already blocking before: no new finalizers check.
    await expect(run(['delete configmaps'], cm([blocking, { ...owner, uid: 'u2', name: 'other' }]), cm([blocking]))).resolves.toBeUndefined();
  });
});
