import { newAlreadyExists, newConflict, newNotFound, StatusError } from '@svc/machinery';
import { ignoreNotFound } from './ignore-not-found';

describe('ignoreNotFound', () => {
  it('turns a NotFound error into undefined, in a catch or on its own', async () => {
    expect(ignoreNotFound(newNotFound('pods', 'web'))).toBeUndefined();
    await expect(Promise.reject(newNotFound('pods', 'web')).catch(ignoreNotFound)).resolves.toBeUndefined();
    // A 404 whose reason this client does not know is still a NotFound, as in Kubernetes.
    const unknownReason = new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'SomethingNew' as never, code: 404 });
    expect(ignoreNotFound(unknownReason)).toBeUndefined();
  });

  it('rethrows every other error unchanged', () => {
    for (const error of [newConflict('pods', 'web', 'changed'), newAlreadyExists('pods', 'web'), new Error('socket hang up'), 'text']) {
      expect(() => ignoreNotFound(error)).toThrow();
      try {
        ignoreNotFound(error);
      } catch (thrown) {
        expect(thrown).toBe(error);
      }
    }
  });
});
