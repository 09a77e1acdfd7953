import { isDeepStrictEqual } from 'node:util';
import {
  customResourceDefinitionDefinition,
  fieldErrors,
  markerSpelling,
  validationRuleErrors,
  type ApiObject,
  type FieldError,
  type KindDefinition,
  type Scheme,
  type ValidationRule,
  withSvcMarkers,
} from '@svc/api';
import { structuralSchemaErrors } from './structural-schema';
import { isRecord } from '@svc/machinery';

/**
 * What a CustomResourceDefinition must satisfy beyond its OpenAPI schema and the checks its
 * built-in KindDefinition already runs (name = `<plural>.<group>`, listKind differs from kind,
 * unique version names, exactly one storage version, schema present and compilable, printer
 * column paths): structural schemas, at least one served version, version names, group and
 * short-name rules, scale paths, and `preserveUnknownFields: true` refused as in `apiextensions/v1`.
 */

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** The additional rules, for a CRD being created or updated (`old` is the stored object on update). */
export function validateCustomResourceDefinition(obj: ApiObject, old?: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isRecord(obj.spec) ? obj.spec : undefined;
  if (!spec) return errors;

  if (typeof spec.group === 'string' && !spec.group.includes('.')) {
    errors.push(fieldErrors.invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  }
  if (spec.preserveUnknownFields === true) {
    errors.push(
      fieldErrors.invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-svc-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }

  const names = isRecord(spec.names) ? spec.names : undefined;
  if (names) {
    const shortNames = Array.isArray(names.shortNames) ? names.shortNames : [];
    const seen = new Set<unknown>();
    shortNames.forEach((s, i) => {
      if (seen.has(s)) errors.push(fieldErrors.duplicate(`spec.names.shortNames[${i}]`, s));
      seen.add(s);
    });
    const categories = Array.isArray(names.categories) ? names.categories : [];
    const seenCategories = new Set<unknown>();
    categories.forEach((c, i) => {
      if (seenCategories.has(c)) errors.push(fieldErrors.duplicate(`spec.names.categories[${i}]`, c));
      seenCategories.add(c);
    });
    if (typeof names.singular === 'string' && typeof names.plural === 'string' && names.singular !== names.plural && shortNames.includes(names.plural)) {
      errors.push(fieldErrors.invalid('spec.names.shortNames', shortNames, 'must not contain the plural name'));
    }
  }

  const versions = records(spec.versions);
  if (versions.length > 0 && !versions.some((v) => v.served === true)) {
    errors.push(
      fieldErrors.invalid(
        'spec.versions',
        versions.map((v) => v.name),
        'must have at least one version marked as served',
      ),
    );
  }
  const oldVersions = new Map<unknown, unknown>();
  if (old && isRecord(old.spec)) {
    for (const v of records(old.spec.versions)) oldVersions.set(v.name, isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined);
  }
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (typeof v.name === 'string' && !DNS1035_LABEL.test(v.name)) {
      errors.push(
        fieldErrors.invalid(
          `${at}.name`,
          v.name,
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        ),
      );
    }
    const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
    // Real manifests spell the markers `x-kubernetes-*`: they are read as the specification's `x-svc-*`.
    if (isRecord(schema)) {
      const structural = structuralSchemaErrors(withSvcMarkers(schema), `${at}.schema.openAPIV3Schema`);
      errors.push(...structural);
      // As in Kubernetes, rules are compiled against a structural schema only: a node that is no schema
      // at all (`properties: {spec: null}`) is reported above, not walked by the rule compiler.
      if (structural.length === 0) {
        // On an update that leaves this version's schema as it was, Kubernetes holds its rules to the
        // per-CRD total only: a rule accepted once is not refused later for its own estimate.
        const suppressPerExpressionCost = oldVersions.has(v.name) && isDeepStrictEqual(oldVersions.get(v.name), schema);
        errors.push(
          ...validationRuleErrors(withSvcMarkers(schema), `${at}.schema.openAPIV3Schema`, { marker: markerSpelling(schema), suppressPerExpressionCost }),
        );
      }
    }
    const scale = isRecord(v.subresources) && isRecord(v.subresources.scale) ? v.subresources.scale : undefined;
    if (scale) {
      if (typeof scale.specReplicasPath === 'string' && !scale.specReplicasPath.startsWith('.spec.')) {
        errors.push(fieldErrors.invalid(`${at}.subresources.scale.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
      }
      if (typeof scale.statusReplicasPath === 'string' && !scale.statusReplicasPath.startsWith('.status.')) {
        errors.push(fieldErrors.invalid(`${at}.subresources.scale.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
      }
      if (typeof scale.labelSelectorPath === 'string' && !/^\.(spec|status)\./.test(scale.labelSelectorPath)) {
        errors.push(
          fieldErrors.invalid(`${at}.subresources.scale.labelSelectorPath`, scale.labelSelectorPath, 'should be a json path under either .spec or .status'),
        );
      }
    }
  });

  errors.push(...conversionErrors(spec.conversion));

  if (old && isRecord(old.spec)) {
    // A version objects may still be stored in cannot leave the spec before a storage migration.
    const status = isRecord(old.status) ? old.status : undefined;
    const stored = Array.isArray(status?.storedVersions) ? (status.storedVersions as unknown[]) : [];
    const names = new Set(versions.map((v) => v.name));
    stored.forEach((s) => {
      if (!names.has(s))
        errors.push(
          fieldErrors.invalid(
            'spec.versions',
            versions.map((v) => v.name),
            `must include all storedVersions: ${String(s)} is missing`,
          ),
        );
    });
    if (old.spec.scope !== undefined && spec.scope !== old.spec.scope && stored.length > 0) {
      errors.push(fieldErrors.invalid('spec.scope', spec.scope, 'field is immutable once objects may have been stored'));
    }
  }
  return errors;
}

/** Kubernetes' rules of `spec.conversion`: a webhook exactly when the strategy is Webhook, reached one way, over HTTPS. */
function conversionErrors(conversion: unknown): FieldError[] {
  if (!isRecord(conversion)) return [];
  const errors: FieldError[] = [];
  const at = 'spec.conversion.webhook';
  const webhook = isRecord(conversion.webhook) ? conversion.webhook : undefined;
  if (conversion.strategy !== 'Webhook') {
    if (webhook !== undefined) errors.push(fieldErrors.forbidden(at, 'should not be set when strategy is not set to Webhook'));
    return errors;
  }
  if (webhook === undefined) return [fieldErrors.required(at, 'required when strategy is set to Webhook')];
  const versions = Array.isArray(webhook.conversionReviewVersions) ? (webhook.conversionReviewVersions as unknown[]) : [];
  if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) {
    errors.push(fieldErrors.invalid(`${at}.conversionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
  }
  const config = isRecord(webhook.clientConfig) ? webhook.clientConfig : undefined;
  if (config === undefined) return [...errors, fieldErrors.required(`${at}.clientConfig`, 'required when strategy is set to Webhook')];
  const hasUrl = typeof config.url === 'string';
  const hasService = isRecord(config.service);
  if (hasUrl === hasService) errors.push(fieldErrors.required(`${at}.clientConfig`, 'exactly one of url or service is required'));
  if (hasUrl) {
    const url = config.url as string;
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errors.push(fieldErrors.invalid(`${at}.clientConfig.url`, url, 'must be a valid URL'));
    }
    if (parsed && parsed.protocol !== 'https:') errors.push(fieldErrors.invalid(`${at}.clientConfig.url`, url, "'https' is the only allowed URL scheme"));
    if (parsed && (parsed.username || parsed.password))
      errors.push(fieldErrors.invalid(`${at}.clientConfig.url`, url, 'user information is not permitted in the URL'));
    if (parsed && (parsed.hash || parsed.search))
      errors.push(fieldErrors.invalid(`${at}.clientConfig.url`, url, 'query parameters and fragments are not permitted'));
  }
  if (hasService) {
    const service = config.service as Record<string, unknown>;
    if (typeof service.path === 'string' && !service.path.startsWith('/')) {
      errors.push(fieldErrors.invalid(`${at}.clientConfig.service.path`, service.path, "must start with a '/'"));
    }
    if (typeof service.port === 'number' && (service.port < 1 || service.port > 65535)) {
      errors.push(fieldErrors.invalid(`${at}.clientConfig.service.port`, service.port, 'port is not valid: must be between 1 and 65535, inclusive'));
    }
  }
  return errors;
}

/** As a KindDefinition validation rule: on an update it sees the stored CRD. */
export const customResourceDefinitionRule: ValidationRule = (obj, current) => validateCustomResourceDefinition(obj, current);

/**
 * Adds the rule to the CustomResourceDefinition kind of `scheme` (idempotent), so that the generic
 * create and update handlers run it like every other validation rule. Returns the definition.
 */
export function installCrdValidation(scheme: Scheme): KindDefinition {
  const def = scheme.byGvk({
    group: customResourceDefinitionDefinition.group,
    version: customResourceDefinitionDefinition.version,
    kind: customResourceDefinitionDefinition.kind,
  });
  if (!def) throw new Error('the scheme has no CustomResourceDefinition kind');
  if (!def.validationRules.includes(customResourceDefinitionRule)) def.validationRules.push(customResourceDefinitionRule);
  return def;
}
