import { Type, type Static } from '@sinclair/typebox';
import { describeFields, Int32, ListAtomic, StringEnum } from '../../schema/builders';
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

// What `kubectl explain` says of each field, in this project's words.
describeFields(RuleWithOperationsSchema, {
  operations: 'The operations: CREATE, UPDATE, DELETE, CONNECT, or `*` for all.',
  apiGroups: 'The API groups: `""` for the core group, `*` for any.',
  apiVersions: 'The API versions; `*` for any.',
  resources: 'The resources: `pods`, `pods/status` for a subresource, `*` for every resource but no subresource, `*/*` for everything.',
  scope: 'Cluster (cluster-wide resources), Namespaced (namespaced ones) or `*` (both, the default).',
});
describeFields(ServiceReferenceSchema, {
  namespace: "The service's namespace.",
  name: "The service's name.",
  path: 'The URL path requests are sent to.',
  port: 'The service port to call; 443 by default.',
});
describeFields(WebhookClientConfigSchema, {
  url: 'The URL of a webhook outside the cluster: https, with no user, query or fragment. Not with service.',
  service: 'The Service a webhook in the cluster runs behind, called over https. Not with url.',
  caBundle: "The CA certificates (PEM, base64 encoded) the webhook's serving certificate must chain to; the API server's own trust roots when left out.",
});
describeFields(MatchConditionSchema, {
  name: 'A name for the condition, unique in the list.',
  expression:
    'A CEL expression that gives true or false. It reads object, oldObject, request and authorizer, and in a policy params, namespaceObject and variables too.',
});
const WEBHOOK_FIELDS = {
  name: 'A name for the webhook, unique in the configuration and fully qualified, such as `policy.example.com`.',
  clientConfig: 'How the API server reaches the webhook.',
  rules: 'The requests the webhook is called for: those any rule matches.',
  failurePolicy: 'What happens when the webhook cannot be reached or errs: Fail (the default) refuses the request, Ignore lets it through.',
  matchPolicy:
    'Equivalent (the default) also calls the webhook for the same objects reached through another group or version, converted to one its rules name; Exact only for what they name.',
  namespaceSelector: 'Calls the webhook only for objects in namespaces whose labels match (a Namespace is matched by its own); every namespace by default.',
  objectSelector: 'Calls the webhook only for objects whose labels, old or new, match; every object by default.',
  sideEffects: 'Whether a call changes anything beyond its answer: None, or NoneOnDryRun (it does, and it is not called for dry runs).',
  timeoutSeconds: 'How long the API server waits for an answer before the failure policy applies: 1 to 30 seconds, 10 by default.',
  admissionReviewVersions: 'The AdmissionReview versions the webhook understands, preferred first; the API server sends the first it knows.',
  matchConditions: 'CEL conditions on the request, all of which must be true for the webhook to be called; at most 64.',
};
describeFields(ValidatingWebhookSchema, WEBHOOK_FIELDS);
describeFields(MutatingWebhookSchema, {
  ...WEBHOOK_FIELDS,
  reinvocationPolicy: 'Whether the webhook is called once more when a later mutating webhook changes the object: Never (the default) or IfNeeded.',
});
describeFields(ValidatingWebhookConfigurationSchema, { webhooks: 'The webhooks, each called for the requests it matches; any of them may refuse a request.' });
describeFields(MutatingWebhookConfigurationSchema, {
  webhooks: 'The webhooks, each called in turn for the requests it matches, and able to change the object.',
});
(ValidatingWebhookConfigurationSchema as { description?: string }).description =
  'Webhooks the API server calls to decide whether a request may go ahead, after every mutation and before the object is stored.';
(MutatingWebhookConfigurationSchema as { description?: string }).description =
  'Webhooks the API server calls to change objects before they are validated and stored.';
