import { Type, type Static } from '@sinclair/typebox';
import { Int32, ListAtomic, StringEnum } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { LabelSelectorSchema } from '../../meta/label-selector';
import type { List } from '../../meta/list';

export const AdmissionOperations = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;

/** Which requests a webhook or policy sees: operations on group/version/resource in a scope. */
export const RuleWithOperationsSchema = Type.Object({
  operations: Type.Optional(ListAtomic(StringEnum(AdmissionOperations))),
  apiGroups: Type.Optional(ListAtomic(Type.String())),
  apiVersions: Type.Optional(ListAtomic(Type.String())),
  resources: Type.Optional(ListAtomic(Type.String())),
  scope: Type.Optional(StringEnum(['*', 'Cluster', 'Namespaced'] as const, { default: '*' })),
});
export type RuleWithOperations = Static<typeof RuleWithOperationsSchema>;

export const ServiceReferenceSchema = Type.Object({
  namespace: Type.String(),
  name: Type.String(),
  path: Type.Optional(Type.String()),
  // Checked by the webhook rules, which word a bad port as Kubernetes' ValidateWebhookService does.
  port: Type.Optional(Int32({ default: 443 })),
});

export const WebhookClientConfigSchema = Type.Object({
  url: Type.Optional(Type.String({ maxLength: 2048 })),
  service: Type.Optional(ServiceReferenceSchema),
  /** Base64 of the PEM CA bundle the webhook's serving certificate chains to. */
  caBundle: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
});
export type WebhookClientConfig = Static<typeof WebhookClientConfigSchema>;

/** A CEL condition on the request; all must hold for the webhook (or policy) to be called. */
export const MatchConditionSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 63 }),
  expression: Type.String({ minLength: 1, maxLength: 10 * 1024 }),
});
export type MatchCondition = Static<typeof MatchConditionSchema>;

const webhookFields = {
  name: Type.String({ minLength: 1, maxLength: 253 }),
  clientConfig: WebhookClientConfigSchema,
  rules: Type.Optional(ListAtomic(RuleWithOperationsSchema)),
  failurePolicy: Type.Optional(StringEnum(['Ignore', 'Fail'] as const, { default: 'Fail' })),
  matchPolicy: Type.Optional(StringEnum(['Exact', 'Equivalent'] as const, { default: 'Equivalent' })),
  namespaceSelector: Type.Optional(LabelSelectorSchema),
  objectSelector: Type.Optional(LabelSelectorSchema),
  sideEffects: StringEnum(['None', 'NoneOnDryRun', 'Some', 'Unknown'] as const),
  timeoutSeconds: Type.Optional(Int32({ minimum: 1, maximum: 30, default: 10 })),
  admissionReviewVersions: ListAtomic(Type.String()),
  matchConditions: Type.Optional(Type.Array(MatchConditionSchema, { 'x-svc-list-type': 'map', 'x-svc-list-map-keys': ['name'], maxItems: 64 })),
};

export const ValidatingWebhookSchema = Type.Object(webhookFields);
export type ValidatingWebhook = Static<typeof ValidatingWebhookSchema>;

export const MutatingWebhookSchema = Type.Object({
  ...webhookFields,
  reinvocationPolicy: Type.Optional(StringEnum(['Never', 'IfNeeded'] as const, { default: 'Never' })),
});
export type MutatingWebhook = Static<typeof MutatingWebhookSchema>;

export const ValidatingWebhookConfigurationSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  webhooks: Type.Optional(Type.Array(ValidatingWebhookSchema, { 'x-svc-list-type': 'map', 'x-svc-list-map-keys': ['name'], maxItems: 100 })),
});
export type ValidatingWebhookConfiguration = Static<typeof ValidatingWebhookConfigurationSchema>;
export type ValidatingWebhookConfigurationList = List<ValidatingWebhookConfiguration>;

export const MutatingWebhookConfigurationSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  webhooks: Type.Optional(Type.Array(MutatingWebhookSchema, { 'x-svc-list-type': 'map', 'x-svc-list-map-keys': ['name'], maxItems: 100 })),
});
export type MutatingWebhookConfiguration = Static<typeof MutatingWebhookConfigurationSchema>;
export type MutatingWebhookConfigurationList = List<MutatingWebhookConfiguration>;
