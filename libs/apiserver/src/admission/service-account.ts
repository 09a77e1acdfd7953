import { randomInt } from 'node:crypto';
import type { ApiObject } from '@svc/api';
import { newForbidden } from '@svc/machinery';
import type { AdmissionPlugin } from './admission';
import { admittedName, isPodCreate, podSpecOf } from './pod-admission';

/** The account a Pod runs as when it names none. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** Pods a node agent mirrors from its static manifests carry this annotation; they are left alone. */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** Where the API access volume is mounted in every container. */
export const API_ACCESS_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The prefix of the volume's name; five random characters follow. */
export const API_ACCESS_VOLUME_PREFIX = 'kube-api-access-';
/** A token lives an hour and seven seconds, Kubernetes' figure (the extra seconds mark it as one of these). */
export const API_ACCESS_TOKEN_EXPIRATION_SECONDS = 3607;
/** The characters Kubernetes draws generated names from: no vowels, no look-alikes. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Reads an object of a core (group "") resource; undefined when there is none. */
export type CoreObjectLookup = (namespace: string, name: string) => Promise<ApiObject | undefined>;
export type ServiceAccountLookup = CoreObjectLookup;

/**
 * Kubernetes' ServiceAccount admission plugin, its defaulting, lookup and token mount: a Pod that names
 * no account runs as `default`, and an account it names must exist, else the Pod is refused as
 * Kubernetes refuses it. Unless the Pod (first) or its account says `automountServiceAccountToken:
 * false`, every container without a mount of its own at {@link API_ACCESS_MOUNT_PATH} gets the
 * projected `kube-api-access-<random>` volume there: a token bound to the Pod, the cluster CA from
 * the `kube-root-ca.crt` ConfigMap, and the namespace. A Pod without image pull secrets gets its
 * account's. A missing `default` account does not refuse the
 * Pod (the serviceaccount controller makes it moments after its namespace, and a Pod created in
 * between would otherwise fail); the token is mounted as for an account that says nothing.
 */
export function serviceAccountAdmission(lookup: ServiceAccountLookup, options: { mountTokens?: boolean } = {}): AdmissionPlugin {
  // A server that issues no tokens (no --service-account-signing-key-file) has none to mount: a pod
  // given the volume would wait for its token forever.
  const mountTokens = options.mountTokens !== false;
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
      const account = await lookup(attributes.namespace, name);
      if (account === undefined && name !== DEFAULT_SERVICE_ACCOUNT) {
        throw newForbidden(
          { group: '', resource: 'pods' },
          admittedName(attributes),
          `error looking up service account ${attributes.namespace}/${name}: serviceaccount "${name}" not found`,
        );
      }
      if (mountTokens && shouldAutomount(spec, account)) mountApiAccess(spec);
      // A pod that names no pull secrets pulls with its account's, as Kubernetes copies them.
      const accountPullSecrets = objectsOf((account as { imagePullSecrets?: unknown } | undefined)?.imagePullSecrets);
      if (!(Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length > 0) && accountPullSecrets.length > 0) {
        spec.imagePullSecrets = accountPullSecrets.map((secret) => ({ ...secret }));
      }
    },
  };
}

/** The Pod's choice wins, then the account's; mounting is the default. */
function shouldAutomount(spec: Record<string, unknown>, account: ApiObject | undefined): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  const accountChoice = (account as { automountServiceAccountToken?: unknown } | undefined)?.automountServiceAccountToken;
  return typeof accountChoice === 'boolean' ? accountChoice : true;
}

function objectsOf(list: unknown): Array<Record<string, unknown>> {
  return Array.isArray(list) ? list.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item)) : [];
}

/** Kubernetes' mountServiceAccountToken: one volume, mounted in each (init) container that has nothing at the path. */
function mountApiAccess(spec: Record<string, unknown>): void {
  const volumes = objectsOf(spec.volumes);
  const existing = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith(API_ACCESS_VOLUME_PREFIX));
  const volumeName = typeof existing?.name === 'string' ? existing.name : `${API_ACCESS_VOLUME_PREFIX}${randomSuffix(5)}`;
  let needsVolume = false;
  for (const container of [...objectsOf(spec.initContainers), ...objectsOf(spec.containers)]) {
    const mounts = Array.isArray(container.volumeMounts) ? (container.volumeMounts as unknown[]) : [];
    if (objectsOf(mounts).some((m) => m.mountPath === API_ACCESS_MOUNT_PATH)) continue;
    container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: API_ACCESS_MOUNT_PATH }];
    needsVolume = true;
  }
  if (existing || !needsVolume) return;
  spec.volumes = [...(Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : []), apiAccessVolume(volumeName)];
}

function apiAccessVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: API_ACCESS_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 0o644,
    },
  };
}

function randomSuffix(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return out;
}
