import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Credentials for one registry host, as registries.yaml (and containerd's CRI plugin) spell them. */
export interface RegistryAuth {
  username?: string;
  password?: string;
  /** base64 of `user:password`. */
  auth?: string;
  identitytoken?: string;
}

export interface RegistryTls {
  cert_file?: string;
  key_file?: string;
  ca_file?: string;
  insecure_skip_verify?: boolean;
}

/** k3s's registries.yaml: mirrors per registry, and auth and TLS per endpoint host. */
export interface RegistriesConfig {
  mirrors: Record<string, { endpoint: string[] }>;
  configs: Record<string, { auth?: RegistryAuth; tls?: RegistryTls }>;
}

/** Thrown for a registries.yaml that cannot be honoured; the message names the field. */
export class RegistriesConfigError extends Error {}

const MAX_FILE_BYTES = 1024 * 1024;

function record(value: unknown, at: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new RegistriesConfigError(`${at}: must be a map`);
  return value as Record<string, unknown>;
}

function optionalString(value: unknown, at: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new RegistriesConfigError(`${at}: must be a string`);
  return value;
}

function registryHost(name: string, at: string): string {
  if (name === '*') throw new RegistriesConfigError(`${at}: the "*" wildcard mirror needs containerd 1.7 (this node runs 1.6); name each registry`);
  if (!/^[a-zA-Z0-9.-]+(:[0-9]+)?$/.test(name)) throw new RegistriesConfigError(`${at}: ${JSON.stringify(name)} is not a registry host`);
  return name;
}

function parseMirror(name: string, value: unknown): { endpoint: string[] } {
  const at = `mirrors.${name}`;
  const fields = record(value, at);
  for (const key of Object.keys(fields)) {
    if (key === 'rewrite') throw new RegistriesConfigError(`${at}.rewrite: rewriting repository names needs k3s's containerd; this node runs Debian's`);
    if (key !== 'endpoint') throw new RegistriesConfigError(`${at}.${key}: unknown field`);
  }
  const endpoints = fields.endpoint ?? [];
  if (!Array.isArray(endpoints)) throw new RegistriesConfigError(`${at}.endpoint: must be a list of URLs`);
  return {
    endpoint: endpoints.map((e, i) => {
      const url = optionalString(e, `${at}.endpoint[${i}]`) ?? '';
      if (!/^https?:\/\/[^/\s]+(\/[^\s]*)?$/.test(url)) throw new RegistriesConfigError(`${at}.endpoint[${i}]: ${JSON.stringify(url)} is not an http(s) URL`);
      return url.replace(/\/+$/, '');
    }),
  };
}

function parseHostConfig(name: string, value: unknown): { auth?: RegistryAuth; tls?: RegistryTls } {
  const at = `configs.${name}`;
  const fields = record(value, at);
  const out: { auth?: RegistryAuth; tls?: RegistryTls } = {};
  for (const [key, inner] of Object.entries(fields)) {
    const section = record(inner, `${at}.${key}`);
    if (key === 'auth') {
      out.auth = {};
      for (const [k, v] of Object.entries(section)) {
        const field = k === 'identity_token' ? 'identitytoken' : k;
        if (!['username', 'password', 'auth', 'identitytoken'].includes(field)) throw new RegistriesConfigError(`${at}.auth.${k}: unknown field`);
        out.auth[field as keyof RegistryAuth] = optionalString(v, `${at}.auth.${k}`);
      }
    } else if (key === 'tls') {
      out.tls = {};
      for (const [k, v] of Object.entries(section)) {
        if (k === 'insecure_skip_verify') {
          if (typeof v !== 'boolean') throw new RegistriesConfigError(`${at}.tls.${k}: must be true or false`);
          out.tls.insecure_skip_verify = v;
        } else if (k === 'cert_file' || k === 'key_file' || k === 'ca_file') out.tls[k] = optionalString(v, `${at}.tls.${k}`);
        else throw new RegistriesConfigError(`${at}.tls.${k}: unknown field`);
      }
    } else throw new RegistriesConfigError(`${at}.${key}: unknown field`);
  }
  return out;
}

/** Parses registries.yaml's text; refuses, naming the field, what containerd 1.6 cannot do. */
export function parseRegistriesConfig(text: string): RegistriesConfig {
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw new RegistriesConfigError(`larger than ${MAX_FILE_BYTES} bytes`);
  let document: unknown;
  try {
    document = parseYaml(text, { maxAliasCount: 10 });
  } catch (error) {
    throw new RegistriesConfigError(`not YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const top = record(document, 'registries.yaml');
  for (const key of Object.keys(top)) if (key !== 'mirrors' && key !== 'configs') throw new RegistriesConfigError(`${key}: unknown field`);
  const config: RegistriesConfig = { mirrors: {}, configs: {} };
  for (const [name, value] of Object.entries(record(top.mirrors, 'mirrors'))) config.mirrors[registryHost(name, `mirrors.${name}`)] = parseMirror(name, value);
  for (const [name, value] of Object.entries(record(top.configs, 'configs')))
    config.configs[registryHost(name, `configs.${name}`)] = parseHostConfig(name, value);
  return config;
}

/** The upstream a registry name stands for, as containerd resolves it. */
export function defaultRegistryServer(registry: string): string {
  return registry === 'docker.io' ? 'https://registry-1.docker.io' : `https://${registry}`;
}

function hostOf(url: string): string {
  return url.replace(/^https?:\/\//, '').split('/')[0];
}

function hostSection(url: string, tls: RegistryTls | undefined, capabilities: string[]): string {
  const lines = [`[host.${JSON.stringify(url)}]`, `  capabilities = ${JSON.stringify(capabilities)}`];
  if (tls?.ca_file) lines.push(`  ca = ${JSON.stringify(tls.ca_file)}`);
  if (tls?.cert_file && tls.key_file) lines.push(`  client = [[${JSON.stringify(tls.cert_file)}, ${JSON.stringify(tls.key_file)}]]`);
  else if (tls?.cert_file) lines.push(`  client = ${JSON.stringify(tls.cert_file)}`);
  if (tls?.insecure_skip_verify) lines.push('  skip_verify = true');
  return lines.join('\n');
}

/**
 * The hosts.toml of one registry: the node's own image mirror first (images imported on any node of
 * this machine), then the registries.yaml mirrors in their order, then the registry itself, each
 * with the TLS settings registries.yaml gives its host.
 */
export function registryHostsToml(registry: string, config: RegistriesConfig, localMirror?: string): string {
  const server = defaultRegistryServer(registry);
  const tlsOf = (url: string) => config.configs[hostOf(url)]?.tls;
  const sections: string[] = [];
  if (localMirror) sections.push(hostSection(localMirror, undefined, ['pull', 'resolve']));
  for (const endpoint of config.mirrors[registry]?.endpoint ?? []) {
    if (endpoint === server) continue;
    sections.push(hostSection(endpoint, tlsOf(endpoint), ['pull', 'resolve']));
  }
  // The registry's own server: an endpoint naming it keeps its place (and TLS) as containerd's fallback.
  const own = tlsOf(server);
  const serverLines = [`server = ${JSON.stringify(server)}`];
  if (own?.ca_file) serverLines.push(`ca = ${JSON.stringify(own.ca_file)}`);
  if (own?.insecure_skip_verify) serverLines.push('skip_verify = true');
  return `# Written by the control plane from registries.yaml; rewritten at each start.\n${serverLines.join('\n')}\n\n${sections.join('\n\n')}\n`;
}

/** Credentials per host for containerd's CRI plugin (a pod's imagePullSecrets take precedence). */
export function registryAuths(config: RegistriesConfig): Record<string, RegistryAuth> {
  const out: Record<string, RegistryAuth> = {};
  for (const [host, value] of Object.entries(config.configs)) if (value.auth) out[host] = value.auth;
  return out;
}

/**
 * Writes containerd's hosts directory: one `<registry>/hosts.toml` for each registry that
 * registries.yaml names and each of `registries` (those of the images this machine holds), removing
 * what an earlier start wrote for others.
 */
export async function writeRegistryHosts(dir: string, config: RegistriesConfig, registries: Iterable<string>, localMirror?: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const wanted = new Set([...Object.keys(config.mirrors), ...Object.keys(config.configs), ...registries]);
  for (const entry of await readdir(dir)) if (!wanted.has(entry)) await rm(join(dir, entry), { recursive: true, force: true });
  for (const registry of wanted) {
    await mkdir(join(dir, registry), { recursive: true });
    await writeFile(join(dir, registry, 'hosts.toml'), registryHostsToml(registry, config, localMirror));
  }
}
