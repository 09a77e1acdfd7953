import type { Pod, Secret } from '@svc/api';
import type { Client } from '@svc/client';
import type { AuthConfig } from '@svc/cri';
import { isNotFound } from '@svc/machinery';
import type { CredentialProviderConfig } from '../config/credential-provider-config';
import { CredentialProviders } from './credential-provider';
import type { CredentialLookup } from './image-manager';
import { imageRegistry } from './image-reference';

interface DockerAuth {
  username?: string;
  password?: string;
  auth?: string;
}

/** `https://index.docker.io/v1/` and `docker.io` name the same registry. */
function registryOfKey(key: string): string {
  const host = key
    .replace(/^https?:\/\//, '')
    .split('/')[0]
    .toLowerCase();
  return host === 'index.docker.io' || host === 'registry-1.docker.io' ? 'docker.io' : host;
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
    const registry = imageRegistry(image).host;
    const found: AuthConfig[] = [];
    for (const ref of pod.spec?.imagePullSecrets ?? []) {
      if (!ref.name) continue;
      const secret = await client.secrets.get(ref.name, { namespace: pod.metadata?.namespace }).catch((error: unknown) => {
        if (isNotFound(error)) return undefined;
        throw error;
      });
      if (!secret) continue;
      for (const [key, auth] of dockerConfigAuths(secret)) {
        if (registryOfKey(key) !== registry) continue;
        found.push({ username: auth.username ?? '', password: auth.password ?? '', auth: auth.auth ?? '', serverAddress: registry });
      }
    }
    if (plugins) found.push(...(await plugins.credentials(image)));
    return found;
  };
}
