import { Type, type Static, type TObject } from '@sinclair/typebox';
import { ObjectMetaSchema } from '../../meta/object-meta';
import { Described, ListAtomic, StringMap } from '../../schema/builders';

export const FieldSelectorRequirementSchema = Described(
  Type.Object({ key: Type.String(), operator: Type.String(), values: Type.Optional(ListAtomic(Type.String())) }),
  {
    key: 'The field the requirement is about.',
    operator: 'How the field compares with values: In, NotIn, Exists or DoesNotExist.',
    values: 'The values for In and NotIn; empty for Exists and DoesNotExist.',
  },
  'One condition on a field of the objects a request would touch.',
);

const SelectorAttributes = (what: string) =>
  Described(
    Type.Object({ rawSelector: Type.Optional(Type.String()), requirements: Type.Optional(ListAtomic(FieldSelectorRequirementSchema)) }),
    {
      rawSelector: `The ${what} selector as the request would send it in its query; give this or requirements, not both.`,
      requirements: `The ${what} selector already parsed into requirements.`,
    },
    `The ${what} selector of the request being asked about.`,
  );

export const ResourceAttributesSchema = Described(
  Type.Object({
    namespace: Type.Optional(Type.String()),
    verb: Type.Optional(Type.String()),
    group: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    resource: Type.Optional(Type.String()),
    subresource: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    fieldSelector: Type.Optional(SelectorAttributes('field')),
    labelSelector: Type.Optional(SelectorAttributes('label')),
  }),
  {
    namespace: 'The namespace of the request; empty means every namespace for namespaced resources, and nothing for cluster-scoped ones.',
    verb: 'The API verb: get, list, watch, create, update, patch, delete, deletecollection, or `*` for all.',
    group: 'The API group of the resource; `*` means every group.',
    version: 'The API version of the resource; `*` means every version.',
    resource: 'The resource type, plural and lower case; `*` means every resource.',
    subresource: 'The subresource, such as status or scale; empty for the resource itself.',
    name: 'The name of the object; empty means any object.',
    fieldSelector: 'The field selector of the request, for authorizers that decide on it.',
    labelSelector: 'The label selector of the request, for authorizers that decide on it.',
  },
  'A request on an API resource, described by its verb, group, resource and object.',
);

export const NonResourceAttributesSchema = Described(
  Type.Object({ path: Type.Optional(Type.String()), verb: Type.Optional(Type.String()) }),
  { path: 'The URL path asked about, such as /healthz.', verb: 'The HTTP verb, lower case: get, post, put or delete.' },
  'A request on a URL that is not an API resource.',
);

export const SubjectAccessReviewStatusSchema = Described(
  Type.Object({
    allowed: Type.Boolean(),
    denied: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.String()),
    evaluationError: Type.Optional(Type.String()),
  }),
  {
    allowed: 'True when the request would be allowed.',
    denied: 'True when an authorizer denied the request outright; allowed and denied are never both true. Both false means no authorizer had an opinion.',
    reason: 'Why the request is allowed or denied, in words a person can read.',
    evaluationError: 'A problem met while deciding, such as a rule that could not be read; the decision may still hold.',
  },
  'The decision on a request.',
);

const EXTRA_DESCRIPTION = 'Further facts about the user, keyed by name, as an authenticator would supply them.';

export const SubjectAccessReviewSpecSchema = Described(
  Type.Object({
    resourceAttributes: Type.Optional(ResourceAttributesSchema),
    nonResourceAttributes: Type.Optional(NonResourceAttributesSchema),
    user: Type.Optional(Type.String()),
    groups: Type.Optional(ListAtomic(Type.String())),
    extra: Type.Optional(StringMap(ListAtomic(Type.String()))),
    uid: Type.Optional(Type.String()),
  }),
  {
    resourceAttributes: 'The resource request to decide on; give this or nonResourceAttributes.',
    nonResourceAttributes: 'The URL request to decide on; give this or resourceAttributes.',
    user: 'The user to decide for; give this, groups, or both.',
    groups: 'The groups of the user to decide for.',
    extra: EXTRA_DESCRIPTION,
    uid: 'The unique id of the user to decide for.',
  },
  'The request and the user a SubjectAccessReview asks about.',
);

const reviewObject = <S extends TObject>(kind: string, spec: S, status: TObject, specText: string, description: string) =>
  Described(
    Type.Object({
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: Type.Optional(ObjectMetaSchema),
      spec,
      status: Type.Optional(status),
    }),
    {
      apiVersion: 'The version of the schema this object follows, `authorization.k8s.io/v1`.',
      kind: `The kind of this object, \`${kind}\`.`,
      metadata: 'Standard object metadata; a review is never stored.',
      spec: specText,
      status: 'The answer, filled in by the server.',
    },
    description,
  );

/** authorization/v1 SubjectAccessReview: may this user do this? */
export const SubjectAccessReviewSchema = reviewObject(
  'SubjectAccessReview',
  SubjectAccessReviewSpecSchema,
  SubjectAccessReviewStatusSchema,
  'The request and the user to decide for.',
  'Asks whether a given user may make a given request. Never stored; the decision comes back in status.',
);
export type SubjectAccessReview = Static<typeof SubjectAccessReviewSchema>;

/** authorization/v1 LocalSubjectAccessReview: a SubjectAccessReview inside one namespace. */
export const LocalSubjectAccessReviewSchema = reviewObject(
  'LocalSubjectAccessReview',
  SubjectAccessReviewSpecSchema,
  SubjectAccessReviewStatusSchema,
  "The request and the user to decide for; the request's namespace must be the review's own.",
  'Asks whether a given user may make a given request in the namespace the review is created in, so that namespace admins can ask without cluster-wide rights. Never stored.',
);

export const SelfSubjectAccessReviewSpecSchema = Described(
  Type.Object({
    resourceAttributes: Type.Optional(ResourceAttributesSchema),
    nonResourceAttributes: Type.Optional(NonResourceAttributesSchema),
  }),
  {
    resourceAttributes: 'The resource request to decide on; give this or nonResourceAttributes.',
    nonResourceAttributes: 'The URL request to decide on; give this or resourceAttributes.',
  },
  'The request a SelfSubjectAccessReview asks about, for the caller.',
);

/** authorization/v1 SelfSubjectAccessReview: may I do this? (`kubectl auth can-i`). */
export const SelfSubjectAccessReviewSchema = reviewObject(
  'SelfSubjectAccessReview',
  SelfSubjectAccessReviewSpecSchema,
  SubjectAccessReviewStatusSchema,
  'The request to decide on for the caller.',
  'Asks whether the caller may make a given request, as `kubectl auth can-i` does. Never stored.',
);

export const ResourceRuleSchema = Described(
  Type.Object({
    verbs: ListAtomic(Type.String()),
    apiGroups: Type.Optional(ListAtomic(Type.String())),
    resources: Type.Optional(ListAtomic(Type.String())),
    resourceNames: Type.Optional(ListAtomic(Type.String())),
  }),
  {
    verbs: 'The verbs allowed; `*` means all of them.',
    apiGroups: 'The API groups the rule covers; `*` means all of them.',
    resources: 'The resources the rule covers; `*` means all of them, `*/status` every status subresource.',
    resourceNames: 'The names of the objects the rule covers; empty means every object.',
  },
  'What the caller may do with some API resources.',
);

export const NonResourceRuleSchema = Described(
  Type.Object({ verbs: ListAtomic(Type.String()), nonResourceURLs: Type.Optional(ListAtomic(Type.String())) }),
  {
    verbs: 'The HTTP verbs allowed, lower case; `*` means all of them.',
    nonResourceURLs: 'The URL paths the rule covers; a path ending in `*` covers every path it begins.',
  },
  'What the caller may do with some URLs that are not API resources.',
);

export const SubjectRulesReviewStatusSchema = Described(
  Type.Object({
    resourceRules: ListAtomic(ResourceRuleSchema),
    nonResourceRules: ListAtomic(NonResourceRuleSchema),
    incomplete: Type.Boolean(),
    evaluationError: Type.Optional(Type.String()),
  }),
  {
    resourceRules: 'What the caller may do with API resources in the namespace.',
    nonResourceRules: 'What the caller may do with other URLs.',
    incomplete: 'True when some authorizer cannot list its rules (a webhook, say), so the lists may leave things out.',
    evaluationError: 'Why the lists may be incomplete, when they may.',
  },
  'The rules the caller holds.',
);

export const SelfSubjectRulesReviewSpecSchema = Described(
  Type.Object({ namespace: Type.Optional(Type.String()) }),
  {
    namespace: 'The namespace whose rules to list.',
  },
  'The namespace a SelfSubjectRulesReview asks about.',
);

/** authorization/v1 SelfSubjectRulesReview: what may I do in this namespace? (`kubectl auth can-i --list`). */
export const SelfSubjectRulesReviewSchema = reviewObject(
  'SelfSubjectRulesReview',
  SelfSubjectRulesReviewSpecSchema,
  SubjectRulesReviewStatusSchema,
  'The namespace to list the rules of.',
  'Lists what the caller may do in a namespace, as `kubectl auth can-i --list` does. The list is a hint for user interfaces, not a decision: ask a SelfSubjectAccessReview for that. Never stored.',
);
