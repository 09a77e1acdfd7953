import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { aesCbcProvider, aesGcmProvider, IDENTITY_PROVIDER, secretboxProvider, type ValueProvider } from './value-providers';

/**
 * Which providers protect which resources: the first rule naming a resource wins; within it the first
 * provider (its first key) writes and each reads what carries its prefix.
 */
export interface EncryptionConfig {
  readonly rules: ReadonlyArray<{ readonly resources: readonly string[]; readonly providers: readonly ValueProvider[] }>;
}

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.svc.io/v1'];
const KEY_LENGTHS: Record<string, readonly number[]> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };
const MAX_KEYS = 100;

/** Reads `--encryption-provider-config`; throws one line naming what is wrong. */
export function loadEncryptionConfig(path: string): EncryptionConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`--encryption-provider-config: cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseEncryptionConfig(text);
  } catch (error) {
    throw new Error(`--encryption-provider-config ${path}: ${(error as Error).message}`);
  }
}

/** An apiserver.config.k8s.io/v1 EncryptionConfiguration from YAML or JSON text. */
export function parseEncryptionConfig(text: string): EncryptionConfig {
  const doc = objectAt(parseYaml(text, { maxAliasCount: 0 }) as unknown, 'the file');
  if (doc.kind !== 'EncryptionConfiguration') throw new Error(`kind must be EncryptionConfiguration, got ${JSON.stringify(doc.kind)}`);
  if (!API_VERSIONS.includes(String(doc.apiVersion))) {
    throw new Error(`apiVersion must be one of ${API_VERSIONS.join(', ')}, got ${JSON.stringify(doc.apiVersion)}`);
  }
  const rules = arrayAt(doc.resources, 'resources').map((entry, i) => {
    const rule = objectAt(entry, `resources[${i}]`);
    const resources = arrayAt(rule.resources, `resources[${i}].resources`).map((r, j) => {
      if (typeof r !== 'string' || r === '') throw new Error(`resources[${i}].resources[${j}] must be a resource name such as secrets or deployments.apps`);
      return r.toLowerCase();
    });
    if (resources.length === 0) throw new Error(`resources[${i}].resources must name at least one resource`);
    const providers = arrayAt(rule.providers, `resources[${i}].providers`).flatMap((p, j) => provider(p, `resources[${i}].providers[${j}]`));
    if (providers.length === 0) throw new Error(`resources[${i}].providers must list at least one provider`);
    return { resources, providers };
  });
  if (rules.length === 0) throw new Error('resources must hold at least one entry');
  return { rules };
}

/** A provider entry as one reader per key, in order: the first key of the first provider writes. */
function provider(value: unknown, where: string): ValueProvider[] {
  const entry = objectAt(value, where);
  const types = Object.keys(entry);
  if (types.length !== 1) throw new Error(`${where} must name exactly one provider type (identity, aescbc, aesgcm or secretbox)`);
  const type = types[0];
  if (type === 'identity') return [IDENTITY_PROVIDER];
  if (type === 'kms') throw new Error(`${where}: the kms provider is not supported by this server; use aescbc, aesgcm or secretbox`);
  const lengths = KEY_LENGTHS[type];
  if (!lengths) throw new Error(`${where}: unknown provider type ${JSON.stringify(type)}; use identity, aescbc, aesgcm or secretbox`);
  const keys = arrayAt(objectAt(entry[type], `${where}.${type}`).keys, `${where}.${type}.keys`);
  if (keys.length === 0 || keys.length > MAX_KEYS) throw new Error(`${where}.${type}.keys must hold 1 to ${MAX_KEYS} keys`);
  const seen = new Set<string>();
  const made = keys.map((k, n) => {
    const key = objectAt(k, `${where}.${type}.keys[${n}]`);
    const name = key.name;
    if (typeof name !== 'string' || !/^[^:\s]{1,253}$/.test(name)) {
      throw new Error(`${where}.${type}.keys[${n}].name must be a non-empty name without colons`);
    }
    if (seen.has(name)) throw new Error(`${where}.${type}.keys[${n}].name ${JSON.stringify(name)} is listed twice`);
    seen.add(name);
    const secret = typeof key.secret === 'string' ? Buffer.from(key.secret, 'base64') : Buffer.alloc(0);
    if (typeof key.secret !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(key.secret) || !lengths.includes(secret.length)) {
      throw new Error(`${where}.${type}.keys[${n}].secret must be ${lengths.join(', ')} bytes in base64`);
    }
    if (type === 'aescbc') return aesCbcProvider(name, secret);
    if (type === 'aesgcm') return aesGcmProvider(name, secret);
    return secretboxProvider(name, secret);
  });
  return made;
}

function objectAt(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${where} must be an object`);
  return value as Record<string, unknown>;
}

function arrayAt(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${where} must be a list`);
  return value;
}
