import { Type, type Static } from '@sinclair/typebox';
import { ObjectMetaSchema } from '../../meta/object-meta';
import { Described, ListAtomic, StringMap } from '../../schema/builders';

/** authentication/v1 UserInfo: who a token or a request was found to be. */
export const UserInfoSchema = Described(
  Type.Object({
    username: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    groups: Type.Optional(ListAtomic(Type.String())),
    extra: Type.Optional(StringMap(ListAtomic(Type.String()))),
  }),
  {
    username: 'The name that identifies the user among all active users.',
    uid: 'A value unique to this user over time: a user deleted and added again under the same name gets another one.',
    groups: 'The groups the user belongs to, as authorization sees them.',
    extra: 'Further facts the authenticator supplied about the user, keyed by name; authorizers may read them.',
  },
  'The identity of a user: name, unique id, groups and whatever else the authenticator knows.',
);

export const TokenReviewSpecSchema = Described(
  Type.Object({ token: Type.Optional(Type.String()), audiences: Type.Optional(ListAtomic(Type.String())) }),
  {
    token: 'The bearer token to check, without the `Bearer ` prefix.',
    audiences: "The audiences the caller accepts the token for; the token must be valid for at least one of them. Empty means the API server's own audiences.",
  },
  'The token a TokenReview asks about.',
);

export const TokenReviewStatusSchema = Described(
  Type.Object({
    authenticated: Type.Optional(Type.Boolean()),
    user: Type.Optional(UserInfoSchema),
    audiences: Type.Optional(ListAtomic(Type.String())),
    error: Type.Optional(Type.String()),
  }),
  {
    authenticated: 'True when the token identifies a user.',
    user: 'The user the token belongs to, when it was authenticated.',
    audiences: 'The audiences, among those asked for, the token is valid for.',
    error: 'Why the token could not be checked, when it could not.',
  },
  'What the server found out about the token.',
);

/** authentication/v1 TokenReview: asks whether a bearer token is valid and whose it is. Never stored. */
export const TokenReviewSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    spec: TokenReviewSpecSchema,
    status: Type.Optional(TokenReviewStatusSchema),
  }),
  {
    apiVersion: 'The version of the schema this object follows, `authentication.k8s.io/v1`.',
    kind: 'The kind of this object, `TokenReview`.',
    metadata: 'Standard object metadata; a review is never stored, so only its name and labels mean anything.',
    spec: 'The token to check.',
    status: 'The answer, filled in by the server.',
  },
  'Asks the API server whether a bearer token is valid and, if it is, whose it is. Never stored; the answer comes back in status.',
);
export type TokenReview = Static<typeof TokenReviewSchema>;

export const SelfSubjectReviewStatusSchema = Described(
  Type.Object({ userInfo: Type.Optional(UserInfoSchema) }),
  {
    userInfo: 'The user the request was authenticated as.',
  },
  'What the server found the caller to be.',
);

/** authentication/v1 SelfSubjectReview: tells the caller who the server takes them for. */
export const SelfSubjectReviewSchema = Described(
  Type.Object({
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    status: Type.Optional(SelfSubjectReviewStatusSchema),
  }),
  {
    apiVersion: 'The version of the schema this object follows, `authentication.k8s.io/v1`.',
    kind: 'The kind of this object, `SelfSubjectReview`.',
    metadata: 'Standard object metadata; a review is never stored.',
    status: "The caller's identity, filled in by the server.",
  },
  'Asks the API server who the caller is, as `kubectl auth whoami` does. Never stored.',
);
export type SelfSubjectReview = Static<typeof SelfSubjectReviewSchema>;
