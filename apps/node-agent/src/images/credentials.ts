import type { Pod, Secret } from '@svc/api';
import type { Client } from '@svc/client';
import type { AuthConfig } from '@svc/cri';
import { isNotFound } from '@svc/machinery';
import type { CredentialProviderConfig } from '../config/credential-provider-config';
import { CredentialProviders } from './credential-provider';
import type { CredentialLookup } from './image-manager';
import { matchesImagePattern } from './image-reference';

interface DockerAuth {
  username?: string;
  password?: string;
  auth?: string;
}

/**
 * The keyring key of a docker config entry, as the kubelet derives it: no scheme, a `/v1/` or `/v2/`
 * path standing for the host alone, and Docker Hub's names (`index.docker.io`, `registry-1.docker.io`)
 * as the registry images without one are pulled from.
 */
function keyringKey(entry: string): string {
  const withoutScheme = entry.replace(/^https?:\/\//, '');
  const slash = withoutScheme.indexOf('/');
  let host = (slash < 0 ? withoutScheme : withoutScheme.slice(0, slash)).toLowerCase();
  let path = slash < 0 ? '' : withoutScheme.slice(slash);
  if (/^\/v[12]\//.test(path)) path = path.slice(3);
  if (path === '/') path = '';
  if (host === 'index.docker.io' || host === 'registry-1.docker.io') host = 'docker.io';
  return host + path;
}

/** An entry's user and password; `auth` (base64 of `user:password`) gives both, as the kubelet reads it. */
function userAndPassword(auth: DockerAuth): { username: string; password: string } {
  if (!auth.auth) return { username: auth.username ?? '', password: auth.password ?? '' };
  const decoded = Buffer.from(auth.auth, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { username: auth.username ?? '', password: auth.password ?? '' };
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1).replace(/\0+$/, '') };
}

/**
 * The credentials of docker config entries that apply to `image`, as the kubelet's keyring finds them:
 * an entry applies when its host matches the image's (globs per label, the same port) and its path is
 * a prefix of the image's repository; the most specific keys come first (reverse order of keys).
 */
export function keyringLookup(entries: ReadonlyArray<[string, DockerAuth]>, image: string): AuthConfig[] {
  const byKey = new Map<string, AuthConfig[]>();
  for (const [entry, auth] of entries) {
    const key = keyringKey(entry);
    if (!matchesImagePattern(key, image)) continue;
    // No serverAddress, as the kubelet sends none: containerd then offers the credential to every
    // endpoint of the registry (its mirrors too), and a bare `host:port` there is not a URL it parses.
    const list = byKey.get(key) ?? [];
    list.push({ ...userAndPassword(auth), auth: '', serverAddress: '' });
    byKey.set(key, list);
  }
  return [...byKey.keys()]
    .sort()
    .reverse()
    .flatMap((key) => byKey.get(key) ?? []);
}

/** The registry credentials in a docker config Secret (`.dockerconfigjson` or the older `.dockercfg`). */
export function dockerConfigAuths(secret: Secret): Array<[string, DockerAuth]> {
  const data = secret.data ?? {};
  const decode = (value: string | undefined) => (value === undefined ? undefined : (JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as unknown));
  try {
    const json = decode(data['.dockerconfigjson']) as { auths?: Record<string, DockerAuth> } | undefined;
    if (json?.auths) return Object.entries(json.auths);
    const legacy = decode(data['.dockercfg']) as Record<string, DockerAuth> | undefined;
    if (legacy) return Object.entries(legacy);
  } catch {
    // a malformed secret gives no credentials
  }
  return [];
}

/** Credentials for a pull: the pod's imagePullSecrets for the image's registry, then the exec plugins'. */
export function credentialLookup(client: Client, providers: CredentialProviderConfig | undefined, binDir: string): CredentialLookup {
  const plugins = providers ? new CredentialProviders(providers, binDir, (m) => process.stderr.write(`svc-node-agent: ${m}\n`)) : undefined;
  return async (image: string, pod: Pod): Promise<AuthConfig[]> => {
    const entries: Array<[string, DockerAuth]> = [];
    for (const ref of pod.spec?.imagePullSecrets ?? []) {
      if (!ref.name) continue;
      const secret = await client.secrets.get(ref.name, { namespace: pod.metadata?.namespace }).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      if (secret) entries.push(...dockerConfigAuths(secret));
    }
    const found = keyringLookup(entries, image);
    if (plugins) found.push(...(await plugins.credentials(image)));
    return found;
  };
}
