import type { ApiObject } from '@svc/api';
import { newForbidden } from '@svc/machinery';
import { isStorageError, objectStorageKey, type Storage } from '@svc/storage';
import type { AdmissionPlugin } from './admission';
import { admittedName, isPodCreate, podSpecOf } from './pod-admission';

/** The account a Pod runs as when it names none. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** Pods a node agent mirrors from its static manifests carry this annotation; they are left alone. */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** Reads a ServiceAccount; undefined when there is none. */
export type ServiceAccountLookup = (namespace: string, name: string) => Promise<ApiObject | undefined>;

/** Reads ServiceAccounts straight from storage (one just created is seen at once). */
export function storedServiceAccountLookup(storage: Storage, storePrefix: string): ServiceAccountLookup {
  return async (namespace, name) => {
    try {
      return await storage.get<ApiObject>(objectStorageKey({ prefix: storePrefix, group: '', resource: 'serviceaccounts', namespace, name }));
    } catch (error) {
      if (isStorageError(error, 'KeyNotFound') || error instanceof TypeError) return undefined;
      throw error;
    }
  };
}

/**
 * Kubernetes' ServiceAccount admission plugin, its defaulting and lookup: a Pod that names no account
 * runs as `default` (plugin/pkg/admission/serviceaccount), and an account it names must exist,
 * else the Pod is refused as Kubernetes refuses it. The `default` account is not looked up: no
 * controller of this project creates it in each namespace yet (Kubernetes' serviceaccount controller
 * does). The API token volume Kubernetes mounts is not added: this server issues no tokens.
 */
export function serviceAccountAdmission(lookup: ServiceAccountLookup): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    async admit(attributes) {
      if (!isPodCreate(attributes)) return;
      const pod = attributes.object;
      if (pod?.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
      const spec = podSpecOf(pod);
      if (typeof spec.serviceAccountName !== 'string' || spec.serviceAccountName === '') spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
      // The deprecated field mirrors the name, as Kubernetes' v1 conversion writes it.
      spec.serviceAccount = spec.serviceAccountName;
      const name = spec.serviceAccountName as string;
      if (name === DEFAULT_SERVICE_ACCOUNT) return;
      if ((await lookup(attributes.namespace, name)) === undefined) {
        throw newForbidden(
          { group: '', resource: 'pods' },
          admittedName(attributes),
          `error looking up service account ${attributes.namespace}/${name}: serviceaccount "${name}" not found`,
        );
      }
    },
  };
}
