import { newBadRequest, newConflict, newInvalid, newNotFound, type UserInfo, metaTime } from '@svc/machinery';
import { MIN_TOKEN_SECONDS, type BoundObject, type ServiceAccountTokens } from '../../../auth/service-account-tokens';
import type { AdmissionAttributes } from '../../../admission';
import type { ResourceRegistries } from '../../registries';

const MAX_EXPIRATION_SECONDS = 2 ** 32;
const MAX_AUDIENCES = 100;

/** One TokenRequest: the account it is for, the decoded body, and who asks. */
export interface TokenRequestCall {
  namespace: string;
  name: string;
  body: unknown;
  user: UserInfo | undefined;
  auditAnnotations: Record<string, string> | undefined;
}

interface TokenRequestSpec {
  audiences: string[];
  expirationSeconds: number | undefined;
  boundObjectRef: { kind?: unknown; name?: unknown; uid?: unknown } | undefined;
  raw: Record<string, unknown>;
}

/**
 * Kubernetes' TokenREST (`serviceaccounts/<name>/token`): a token for the account, bound to a pod or
 * secret when asked, for the audiences and lifetime asked (bounded), after admission has seen the
 * TokenRequest (NodeRestriction holds a node to its pods' tokens). Answers the TokenRequest with its
 * status; nothing is stored.
 */
export async function requestToken(tokens: ServiceAccountTokens, registries: ResourceRegistries, call: TokenRequestCall): Promise<Record<string, unknown>> {
  const spec = tokenRequestSpec(call.body);
  const accounts = registries.serviceAccounts;
  if (accounts === undefined) throw newNotFound({ group: '', resource: 'serviceaccounts' }, '');
  const { namespace, name } = call;
  const admitted: AdmissionAttributes = {
    operation: 'CREATE',
    definition: accounts.definition,
    namespace,
    name,
    subresource: 'token',
    object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { name, namespace }, spec: spec.raw },
    dryRun: false,
    user: call.user,
    auditAnnotations: call.auditAnnotations,
  };
  await registries.context.admission.admit(admitted);
  await registries.context.admission.validate(admitted);
  const account = await accounts.get(namespace, name);
  const bound = await boundObjectOf(registries, namespace, spec.boundObjectRef);
  const expirationSeconds = tokens.expirationFor(spec.expirationSeconds);
  const issued = await tokens.issue({
    namespace,
    serviceAccount: { name, uid: account.metadata?.uid ?? '' },
    audiences: spec.audiences,
    expirationSeconds,
    bound,
  });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: {
      audiences: spec.audiences.length > 0 ? spec.audiences : [...tokens.audiences],
      expirationSeconds,
      boundObjectRef: bound ? { kind: bound.kind, apiVersion: 'v1', name: bound.name, uid: bound.uid } : null,
    },
    status: { token: issued.token, expirationTimestamp: metaTime(issued.expiresAt) },
  };
}

/** The request's spec, checked: a lifetime of 10 minutes to 2^32 seconds, at most 100 audiences. */
function tokenRequestSpec(body: unknown): TokenRequestSpec {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw newBadRequest('the request body must be a TokenRequest object');
  const object = body as Record<string, unknown>;
  const raw = (typeof object.spec === 'object' && object.spec !== null ? object.spec : {}) as Record<string, unknown>;
  const requested = raw.expirationSeconds === undefined || raw.expirationSeconds === null ? undefined : Number(raw.expirationSeconds);
  if (requested !== undefined && (!Number.isInteger(requested) || requested < MIN_TOKEN_SECONDS || requested > MAX_EXPIRATION_SECONDS)) {
    const detail =
      requested > MAX_EXPIRATION_SECONDS ? 'may not specify a duration larger than 2^32 seconds' : 'may not specify a duration less than 10 minutes';
    throw invalid('spec.expirationSeconds', requested, detail);
  }
  const audiences = Array.isArray(raw.audiences) ? raw.audiences.filter((a): a is string => typeof a === 'string') : [];
  if (audiences.length > MAX_AUDIENCES) throw invalid('spec.audiences', audiences.length, 'may not name more than 100 audiences');
  const ref = raw.boundObjectRef as TokenRequestSpec['boundObjectRef'] | null | undefined;
  return { audiences, expirationSeconds: requested, boundObjectRef: ref ?? undefined, raw };
}

/** The pod or secret the token is bound to, which must exist (and be the one the reference's uid names). */
async function boundObjectOf(registries: ResourceRegistries, namespace: string, ref: TokenRequestSpec['boundObjectRef']): Promise<BoundObject | undefined> {
  if (ref === undefined) return undefined;
  if (ref.kind !== 'Pod' && ref.kind !== 'Secret') throw invalid('spec.boundObjectRef.kind', ref.kind, 'supported values: "Pod", "Secret"');
  const resource = ref.kind === 'Pod' ? 'pods' : 'secrets';
  const registry = ref.kind === 'Pod' ? registries.pods : registries.secrets;
  if (registry === undefined) throw newNotFound({ group: '', resource }, '');
  const boundName = typeof ref.name === 'string' ? ref.name : '';
  const uid = (await registry.get(namespace, boundName)).metadata?.uid ?? '';
  if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
    throw newConflict(
      { group: '', resource },
      boundName,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return { kind: ref.kind, name: boundName, uid };
}

function invalid(field: string, value: unknown, detail: string) {
  return newInvalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, '', [{ type: 'FieldValueInvalid', field, badValue: value, detail }]);
}
