import { Type, type Static } from '@sinclair/typebox';
import { compileKind, defineKind, fieldErrors, type ApiObject, type FieldError } from '@svc/api';
import { Duration, typeMeta } from './config-schema';
import { CONFIG_API_VERSION, CONFIG_GROUP, CONFIG_VERSION } from './node-agent-configuration';

/** Versions of the exec plugin protocol this agent speaks (request and response `apiVersion`). */
export const CREDENTIAL_PROVIDER_API_VERSIONS = ['credentialprovider.nodeagent.svc.io/v1', 'credentialprovider.kubelet.k8s.io/v1'] as const;

export const CredentialProviderSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  matchImages: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  defaultCacheDuration: Duration(),
  apiVersion: Type.String({ enum: [...CREDENTIAL_PROVIDER_API_VERSIONS] }),
  args: Type.Optional(Type.Array(Type.String())),
  env: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), value: Type.String() }))),
});
export type CredentialProvider = Static<typeof CredentialProviderSchema>;

/** `CredentialProviderConfig` (spec 3): required fields are checked, not defaulted. */
export const CredentialProviderConfigSchema = Type.Object({
  ...typeMeta(CONFIG_API_VERSION, 'CredentialProviderConfig'),
  providers: Type.Array(CredentialProviderSchema, { minItems: 1 }),
});
export type CredentialProviderConfig = Static<typeof CredentialProviderConfigSchema>;

/** One domain label, or `*` globs in it; then an optional port and path. */
const MATCH_IMAGE = /^([a-z0-9*]([a-z0-9*-]*[a-z0-9*])?)(\.([a-z0-9*]([a-z0-9*-]*[a-z0-9*])?))*(:[0-9]+)?(\/.*)?$/i;

function credentialProviderRules(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const providers = Array.isArray(obj.providers) ? (obj.providers as Partial<CredentialProvider>[]) : [];
  const names = new Set<string>();
  providers.forEach((provider, i) => {
    const base = `providers[${i}]`;
    if (typeof provider.name === 'string') {
      if (names.has(provider.name)) errors.push(fieldErrors.duplicate(`${base}.name`, provider.name));
      names.add(provider.name);
      if (/[/\\]|^\.\.?$/.test(provider.name))
        errors.push(fieldErrors.invalid(`${base}.name`, provider.name, 'must be a file name in the provider directory, not a path'));
    }
    (provider.matchImages ?? []).forEach((pattern, j) => {
      if (typeof pattern === 'string' && !MATCH_IMAGE.test(pattern)) {
        errors.push(fieldErrors.invalid(`${base}.matchImages[${j}]`, pattern, 'must be a registry host with optional globs, port and path'));
      }
    });
    if (typeof provider.defaultCacheDuration === 'string' && provider.defaultCacheDuration.startsWith('-')) {
      errors.push(fieldErrors.invalid(`${base}.defaultCacheDuration`, provider.defaultCacheDuration, 'must not be negative'));
    }
  });
  return errors;
}

export const credentialProviderConfigDefinition = defineKind({
  group: CONFIG_GROUP,
  version: CONFIG_VERSION,
  kind: 'CredentialProviderConfig',
  resource: 'credentialproviderconfigs',
  namespaced: false,
  schema: CredentialProviderConfigSchema,
  validationRules: [credentialProviderRules],
});

export const credentialProviderConfigKind = () => compileKind(credentialProviderConfigDefinition);
