import { celError, type CelError } from '@bufbuild/cel';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '@svc/machinery';
import { CelOpaqueValue, celTypeName } from './cel-values';

/**
 * Kubernetes' authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go) as values of the
 * interpreter: `authorizer.group(g).resource(r).namespace(ns).name(n).subresource(s).check(verb)`,
 * `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)` and a decision's
 * `allowed()`, `reason()`, `errored()` and `error()`.
 *
 * Evaluation is synchronous and authorization is not: a check whose answer is not known yet stops
 * the evaluation with a PendingAuthorization naming it. The caller asks the authorizer, records the
 * answer, and evaluates again; a run that stopped is discarded, so only the final run's cost counts.
 * Evaluation is deterministic for the same values and answers, so each run goes as far as the last
 * and one further check is answered per run; the per-call cost limit bounds the runs, as each check
 * costs 350,000 of its 1,000,000.
 */

/** The user a check is made for (Kubernetes' user.Info). */
export interface AuthorizationUser {
  username: string;
  uid?: string;
  groups: readonly string[];
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** What one check asks (Kubernetes' authorizer.AttributesRecord as the library fills it). */
export interface AuthorizationCheck {
  user: AuthorizationUser;
  verb: string;
  resourceRequest: boolean;
  /** Non-resource checks. */
  path: string;
  /** Resource checks: the version is always `*`. */
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

export interface AuthorizationAnswer {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason: string;
  /** The authorizer could not decide (a webhook that failed). */
  error?: string;
}

/** The answers known so far; undefined for a check not answered yet. */
export type AuthorizationAnswers = (check: AuthorizationCheck) => AuthorizationAnswer | undefined;

/** An evaluation reached a check whose answer is not known yet. */
export class PendingAuthorization extends Error {
  constructor(readonly check: AuthorizationCheck) {
    super('authorization check pending');
  }
}

/** A stable key of a check, for the answers of one request. */
export function authorizationCheckKey(check: AuthorizationCheck): string {
  const { user, ...rest } = check;
  return JSON.stringify([user.username, user.uid ?? '', [...user.groups], user.extra ?? {}, rest]);
}

export class CelAuthorizer extends CelOpaqueValue {
  readonly typeName = 'kubernetes.authorization.Authorizer';

  constructor(
    readonly user: AuthorizationUser,
    readonly answers: AuthorizationAnswers,
  ) {
    super();
  }

  equal(other: unknown): boolean | CelError {
    return other === this;
  }

  toString(): string {
    return this.typeName;
  }
}

class CelPathCheck extends CelOpaqueValue {
  readonly typeName = 'kubernetes.authorization.PathCheck';

  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {
    super();
  }

  equal(other: unknown): boolean | CelError {
    return other instanceof CelPathCheck && other.authorizer === this.authorizer && other.path === this.path;
  }

  toString(): string {
    return this.typeName;
  }
}

class CelGroupCheck extends CelOpaqueValue {
  readonly typeName = 'kubernetes.authorization.GroupCheck';

  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {
    super();
  }

  equal(other: unknown): boolean | CelError {
    return other instanceof CelGroupCheck && other.authorizer === this.authorizer && other.group === this.group;
  }

  toString(): string {
    return this.typeName;
  }
}

interface ResourceAttributes {
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  fieldSelector: string;
  labelSelector: string;
}

class CelResourceCheck extends CelOpaqueValue {
  readonly typeName = 'kubernetes.authorization.ResourceCheck';

  constructor(
    readonly group: CelGroupCheck,
    readonly attributes: ResourceAttributes,
  ) {
    super();
  }

  with(change: Partial<ResourceAttributes>): CelResourceCheck {
    return new CelResourceCheck(this.group, { ...this.attributes, ...change });
  }

  equal(other: unknown): boolean | CelError {
    return other instanceof CelResourceCheck && other.group.equal(this.group) === true && JSON.stringify(other.attributes) === JSON.stringify(this.attributes);
  }

  toString(): string {
    return this.typeName;
  }
}

class CelDecision extends CelOpaqueValue {
  readonly typeName = 'kubernetes.authorization.Decision';

  constructor(readonly answer: AuthorizationAnswer) {
    super();
  }

  equal(other: unknown): boolean | CelError {
    return other === this;
  }

  toString(): string {
    return this.typeName;
  }
}

function ask(authorizer: CelAuthorizer, check: AuthorizationCheck): CelDecision {
  const answer = authorizer.answers(check);
  if (answer === undefined) throw new PendingAuthorization(check);
  return new CelDecision(answer);
}

const EMPTY_CHECK = { path: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' };

/** Kubernetes' serviceaccount.ServiceAccountInfo: the user a service account is. */
function serviceAccountUser(namespace: string, name: string): AuthorizationUser {
  return { username: `system:serviceaccount:${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`] };
}

/** Marks a call this library does not answer. */
export const NOT_AUTHORIZER_CALL: unique symbol = Symbol('not an authorizer call');

/** The value of an authorizer library call, or NOT_AUTHORIZER_CALL. May throw PendingAuthorization. */
export function callAuthorizer(name: string, target: unknown, args: readonly unknown[]): unknown {
  const [arg0, arg1] = args;
  const text = typeof arg0 === 'string' ? arg0 : undefined;
  if (target instanceof CelAuthorizer) {
    switch (name) {
      case 'path':
        if (text === undefined) break;
        if (text.trim() === '') return celError('path must not be empty');
        return new CelPathCheck(target, text);
      case 'group':
        if (text === undefined) break;
        return new CelGroupCheck(target, text);
      case 'serviceAccount': {
        if (text === undefined || typeof arg1 !== 'string') break;
        if (nameIsDNSSubdomain(arg1, false).length > 0) return celError('Invalid service account name');
        if (nameIsDNSLabel(text, false).length > 0) return celError('Invalid service account namespace');
        return new CelAuthorizer(serviceAccountUser(text, arg1), target.answers);
      }
      default:
        return NOT_AUTHORIZER_CALL;
    }
  } else if (target instanceof CelGroupCheck) {
    if (name !== 'resource') return NOT_AUTHORIZER_CALL;
    if (text === undefined) return noOverload(name, target, args);
    if (text.trim() === '') return celError('resource must not be empty');
    return new CelResourceCheck(target, { resource: text, subresource: '', namespace: '', name: '', fieldSelector: '', labelSelector: '' });
  } else if (target instanceof CelResourceCheck) {
    const fields: Record<string, keyof ResourceAttributes> = {
      subresource: 'subresource',
      namespace: 'namespace',
      name: 'name',
      fieldSelector: 'fieldSelector',
      labelSelector: 'labelSelector',
    };
    if (name in fields) return text === undefined ? noOverload(name, target, args) : target.with({ [fields[name]]: text });
    if (name !== 'check') return NOT_AUTHORIZER_CALL;
    if (text === undefined) return noOverload(name, target, args);
    const { attributes, group } = target;
    return ask(group.authorizer, {
      ...EMPTY_CHECK,
      user: group.authorizer.user,
      verb: text,
      resourceRequest: true,
      apiGroup: group.group,
      apiVersion: '*',
      ...attributes,
    });
  } else if (target instanceof CelPathCheck) {
    if (name !== 'check') return NOT_AUTHORIZER_CALL;
    if (text === undefined) return noOverload(name, target, args);
    return ask(target.authorizer, { ...EMPTY_CHECK, user: target.authorizer.user, verb: text, resourceRequest: false, path: target.path });
  } else if (target instanceof CelDecision) {
    const { answer } = target;
    switch (name) {
      case 'allowed':
        return answer.decision === 'allow';
      case 'reason':
        return answer.reason;
      case 'errored':
        return answer.error !== undefined;
      case 'error':
        return answer.error ?? '';
      default:
        return NOT_AUTHORIZER_CALL;
    }
  } else return NOT_AUTHORIZER_CALL;
  return noOverload(name, target, args);
}

function noOverload(name: string, target: unknown, args: readonly unknown[]): CelError {
  return celError(`no such overload: ${name}(${[target, ...args].map(celTypeName).join(', ')})`);
}

/** The resource of the request, for `authorizer.requestResource`. */
export interface RequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** The values of `authorizer` and `authorizer.requestResource` for a request's user. */
export function authorizerBindings(user: AuthorizationUser, answers: AuthorizationAnswers, request: RequestResource): Record<string, unknown> {
  const authorizer = new CelAuthorizer(user, answers);
  const requestResource = new CelResourceCheck(new CelGroupCheck(authorizer, request.group), {
    resource: request.resource,
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
    fieldSelector: '',
    labelSelector: '',
  });
  return { authorizer, 'authorizer.requestResource': requestResource };
}
