import { Type, type Static } from '@sinclair/typebox';
import { describeFields, ListAtomic, StringEnum } from '../../schema/builders';
import { objectMetaSchema } from '../../meta/object-meta';
import { LabelSelectorSchema } from '../../meta/label-selector';
import type { List } from '../../meta/list';
import { MatchConditionSchema, RuleWithOperationsSchema } from './webhook-configuration';

export const MatchResourcesSchema = Type.Object({
  namespaceSelector: Type.Optional(LabelSelectorSchema),
  objectSelector: Type.Optional(LabelSelectorSchema),
  resourceRules: Type.Optional(ListAtomic(RuleWithOperationsSchema)),
  excludeResourceRules: Type.Optional(ListAtomic(RuleWithOperationsSchema)),
  matchPolicy: Type.Optional(StringEnum(['Exact', 'Equivalent'] as const, { default: 'Equivalent' })),
});
export type MatchResources = Static<typeof MatchResourcesSchema>;

export const PolicyValidationSchema = Type.Object({
  expression: Type.String({ minLength: 1, maxLength: 10 * 1024 }),
  message: Type.Optional(Type.String({ maxLength: 5000 })),
  messageExpression: Type.Optional(Type.String({ maxLength: 10 * 1024 })),
  reason: Type.Optional(Type.String()),
});

export const ValidatingAdmissionPolicySchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(
    Type.Object({
      matchConstraints: Type.Optional(MatchResourcesSchema),
      validations: Type.Optional(ListAtomic(PolicyValidationSchema, { maxItems: 64 })),
      failurePolicy: Type.Optional(StringEnum(['Ignore', 'Fail'] as const, { default: 'Fail' })),
      /** The kind of the objects a binding hands the policy as `params`. */
      paramKind: Type.Optional(Type.Object({ apiVersion: Type.String({ minLength: 1 }), kind: Type.String({ minLength: 1 }) })),
      matchConditions: Type.Optional(Type.Array(MatchConditionSchema, { 'x-svc-list-type': 'map', 'x-svc-list-map-keys': ['name'], maxItems: 64 })),
      /** Named expressions the validations read as `variables.<name>`, each able to read the ones before it. */
      variables: Type.Optional(
        Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 63 }), expression: Type.String({ minLength: 1, maxLength: 10 * 1024 }) }), {
          'x-svc-list-type': 'map',
          'x-svc-list-map-keys': ['name'],
          maxItems: 64,
        }),
      ),
    }),
  ),
  status: Type.Optional(Type.Object({ observedGeneration: Type.Optional(Type.Integer()) })),
});
export type ValidatingAdmissionPolicy = Static<typeof ValidatingAdmissionPolicySchema>;
export type ValidatingAdmissionPolicyList = List<ValidatingAdmissionPolicy>;

export const ValidatingAdmissionPolicyBindingSchema = Type.Object({
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(objectMetaSchema('dns1123-subdomain')),
  spec: Type.Optional(
    Type.Object({
      policyName: Type.String({ minLength: 1 }),
      matchResources: Type.Optional(MatchResourcesSchema),
      /** Which objects of the policy's paramKind are its `params`: one by name, or all a selector matches. */
      paramRef: Type.Optional(
        Type.Object({
          name: Type.Optional(Type.String()),
          namespace: Type.Optional(Type.String()),
          selector: Type.Optional(LabelSelectorSchema),
          parameterNotFoundAction: Type.Optional(StringEnum(['Allow', 'Deny'] as const, { default: 'Deny' })),
        }),
      ),
      validationActions: ListAtomic(StringEnum(['Deny', 'Warn', 'Audit'] as const), { minItems: 1 }),
    }),
  ),
});
export type ValidatingAdmissionPolicyBinding = Static<typeof ValidatingAdmissionPolicyBindingSchema>;
export type ValidatingAdmissionPolicyBindingList = List<ValidatingAdmissionPolicyBinding>;

// What `kubectl explain` says of each field, in this project's words.
describeFields(MatchResourcesSchema, {
  namespaceSelector: 'Only objects in namespaces whose labels match (a Namespace is matched by its own); every namespace by default.',
  objectSelector: 'Only objects whose labels, old or new, match; every object by default.',
  resourceRules: 'The requests that match: those any rule matches.',
  excludeResourceRules: 'Requests left out even when a resource rule matches them.',
  matchPolicy: 'Equivalent (the default) also matches the same objects reached through another group or version; Exact only what the rules name.',
});
describeFields(PolicyValidationSchema, {
  expression:
    'A CEL expression that gives true to let the request through. It reads object, oldObject, request, params, namespaceObject, variables and authorizer.',
  message: 'The message given when the expression is false; one naming the expression by default.',
  messageExpression: 'A CEL expression giving the message, as a string, in place of message; message is used when it fails.',
  reason:
    'The reason given when the expression is false, which sets the HTTP code: Unauthorized, Forbidden, Invalid or RequestEntityTooLarge. Invalid (422) when it is left out.',
});
describeFields(ValidatingAdmissionPolicySchema, {
  'spec.matchConstraints': 'The requests the policy applies to; a binding may narrow them further.',
  'spec.validations': 'CEL expressions that must all be true for a request to go ahead; at most 64.',
  'spec.failurePolicy':
    'What happens when a validation errs (rather than being false) or the policy is misconfigured: Fail (the default) refuses the request, Ignore lets it through.',
  'spec.paramKind': 'The kind of the objects bindings hand the policy as `params`; none when left out.',
  'spec.paramKind.apiVersion': 'Their group and version, such as `example.com/v1`.',
  'spec.paramKind.kind': 'Their kind.',
  'spec.matchConditions': 'CEL conditions on the request; the policy is checked only when all are true. At most 64.',
  'spec.variables': 'Named CEL expressions the validations read as `variables.<name>`; each may read the ones before it.',
  'spec.variables.name': "The variable's name, a CEL identifier unique in the list.",
  'spec.variables.expression': "The CEL expression giving the variable's value, worked out once per request when first read.",
  'status.observedGeneration': 'The generation of the policy last checked.',
});
(ValidatingAdmissionPolicySchema as { description?: string }).description =
  'Rules written in CEL that requests must meet, checked inside the API server; a ValidatingAdmissionPolicyBinding puts them in force.';
describeFields(ValidatingAdmissionPolicyBindingSchema, {
  'spec.policyName': 'The ValidatingAdmissionPolicy the binding puts in force.',
  'spec.matchResources': "Narrows the requests the policy is checked for to those both match; every request the policy's own constraints match when left out.",
  'spec.paramRef':
    "Which objects of the policy's paramKind are its params: one by name, or every one a selector matches (the policy is then checked against each).",
  'spec.paramRef.name': 'The params object, by name. Not with selector.',
  'spec.paramRef.namespace': "The params' namespace, for a namespaced paramKind; the request's namespace when left out.",
  'spec.paramRef.selector': 'Every params object whose labels match. Not with name.',
  'spec.paramRef.parameterNotFoundAction': 'What happens when no params are found: Allow lets the request through, Deny refuses it.',
  'spec.validationActions':
    'What a failed validation does: Deny refuses the request, Warn sends the client a warning, Audit records it in the audit event of the request (the validation.policy.admission.k8s.io/validation_failure annotation). Not Deny and Warn together.',
});
(ValidatingAdmissionPolicyBindingSchema as { description?: string }).description =
  'Puts a ValidatingAdmissionPolicy in force for some requests, with its parameters.';
