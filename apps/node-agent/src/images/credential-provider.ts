import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { AuthConfig } from '@svc/cri';
import { errorMessage } from '@svc/machinery';
import { parseDuration } from '@svc/options';
import type { CredentialProvider, CredentialProviderConfig } from '../config/credential-provider-config';
import { imageRegistry, matchesImagePattern } from './image-reference';

interface ProviderResponse {
  apiVersion?: string;
  kind?: string;
  cacheKeyType?: 'Image' | 'Registry' | 'Global';
  cacheDuration?: string;
  auth?: Record<string, { username?: string; password?: string }>;
}

interface CacheEntry {
  expires: number;
  auth: Array<[string, AuthConfig]>;
}

/** A plugin's answer is at most this large, and it has this long to give it. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const PLUGIN_TIMEOUT_MS = 60_000;

function runPlugin(binary: string, provider: CredentialProvider, image: string): Promise<ProviderResponse> {
  const request = JSON.stringify({ apiVersion: provider.apiVersion, kind: 'CredentialProviderRequest', image });
  const env = { ...process.env, ...Object.fromEntries((provider.env ?? []).map((e) => [e.name, e.value])) };
  return new Promise((resolve, reject) => {
    const child = spawn(binary, provider.args ?? [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), PLUGIN_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (stdout.length > MAX_RESPONSE_BYTES) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4096)));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`plugin ${provider.name} exited ${code ?? 'on a signal'}: ${stderr.trim()}`));
      try {
        const response = JSON.parse(stdout) as ProviderResponse;
        if (response.apiVersion !== provider.apiVersion || response.kind !== 'CredentialProviderResponse') {
          return reject(
            new Error(
              `plugin ${provider.name} answered ${response.kind ?? '?'} ${response.apiVersion ?? '?'}, want CredentialProviderResponse ${provider.apiVersion}`,
            ),
          );
        }
        resolve(response);
      } catch (error) {
        reject(new Error(`plugin ${provider.name} answered no JSON: ${errorMessage(error)}`));
      }
    });
    child.stdin.end(request);
  });
}

/**
 * Credential provider exec plugins (spec 3): a plugin is run for an image that one of its
 * `matchImages` entries matches, with a CredentialProviderRequest on stdin; its answer is cached by
 * its cacheKeyType for its cacheDuration (or the provider's defaultCacheDuration). Providers are
 * asked in order; for the same registry key the earlier provider's credential wins.
 */
export class CredentialProviders {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly config: CredentialProviderConfig,
    private readonly binDir: string,
    private readonly log: (message: string) => void,
  ) {}

  private cacheKey(provider: CredentialProvider, type: ProviderResponse['cacheKeyType'], image: string): string {
    if (type === 'Global') return `${provider.name}\0global`;
    if (type === 'Registry') return `${provider.name}\0registry\0${imageRegistry(image).host}`;
    return `${provider.name}\0image\0${image}`;
  }

  private cached(provider: CredentialProvider, image: string): CacheEntry | undefined {
    const now = Date.now();
    for (const type of ['Image', 'Registry', 'Global'] as const) {
      const entry = this.cache.get(this.cacheKey(provider, type, image));
      if (entry && entry.expires > now) return entry;
    }
    return undefined;
  }

  async credentials(image: string): Promise<AuthConfig[]> {
    const byKey = new Map<string, AuthConfig>();
    for (const provider of this.config.providers) {
      if (!provider.matchImages.some((pattern) => matchesImagePattern(pattern, image))) continue;
      let entry = this.cached(provider, image);
      if (!entry) {
        try {
          const response = await runPlugin(join(this.binDir, provider.name), provider, image);
          const durationMs = parseDuration(response.cacheDuration || provider.defaultCacheDuration);
          entry = {
            expires: Date.now() + durationMs,
            auth: Object.entries(response.auth ?? {}).map(([key, value]) => [
              key,
              // No serverAddress, as the kubelet sends none (containerd would drop or refuse the credential for it).
              { username: value.username ?? '', password: value.password ?? '', serverAddress: '' },
            ]),
          };
          if (durationMs > 0) this.cache.set(this.cacheKey(provider, response.cacheKeyType ?? 'Image', image), entry);
        } catch (error) {
          this.log(`credential provider ${provider.name} for ${image}: ${errorMessage(error)}`);
          continue;
        }
      }
      for (const [key, auth] of entry.auth) {
        if (!byKey.has(key) && matchesImagePattern(key, image)) byKey.set(key, auth);
      }
    }
    return [...byKey.values()];
  }
}
