import { fieldErrors, type FieldError } from '../schema/field-error';
import type { CelCheckEnvironment } from './cel-checker';
import { T, typeParams, type CelCheckedType } from './cel-checker-types';
import { K8S_TYPES } from './cel-declarations';
import { compileCel, type CelProgram } from './cel-environment';

/**
 * The CEL environment of admission expressions (ValidatingAdmissionPolicy, webhook matchConditions)
 * as Kubernetes 1.32 declares it (k8s.io/apiserver/pkg/admission/plugin/cel/compile.go): `object`,
 * `oldObject` and `params` dyn, `request` a kubernetes.AdmissionRequest, `namespaceObject` a
 * kubernetes.Namespace, `authorizer` and `authorizer.requestResource` where the authorizer is
 * offered, `params` only where the policy has a paramKind, and `variables` (a policy's own, each of
 * its expression's type) only where the policy declares variables.
 */

type Fields = Map<string, CelCheckedType>;

const { string, bool, int, timestamp, dyn } = T;
const listOfString = T.list(string);

const STRUCTS = new Map<string, Fields>([
  [
    'kubernetes.GroupVersionKind',
    new Map([
      ['group', string],
      ['version', string],
      ['kind', string],
    ]),
  ],
  [
    'kubernetes.GroupVersionResource',
    new Map([
      ['group', string],
      ['version', string],
      ['resource', string],
    ]),
  ],
  [
    'kubernetes.UserInfo',
    new Map<string, CelCheckedType>([
      ['username', string],
      ['uid', string],
      ['groups', listOfString],
      ['extra', T.map(string, listOfString)],
    ]),
  ],
  [
    'kubernetes.AdmissionRequest',
    new Map<string, CelCheckedType>([
      ['kind', T.struct('kubernetes.GroupVersionKind')],
      ['resource', T.struct('kubernetes.GroupVersionResource')],
      ['subResource', string],
      ['requestKind', T.struct('kubernetes.GroupVersionKind')],
      ['requestResource', T.struct('kubernetes.GroupVersionResource')],
      ['requestSubResource', string],
      ['name', string],
      ['namespace', string],
      ['operation', string],
      ['userInfo', T.struct('kubernetes.UserInfo')],
      ['dryRun', bool],
      ['options', dyn],
    ]),
  ],
  ['kubernetes.NamespaceSpec', new Map([['finalizers', listOfString]])],
  [
    'kubernetes.NamespaceCondition',
    new Map<string, CelCheckedType>([
      ['status', string],
      ['type', string],
      ['lastTransitionTime', timestamp],
      ['message', string],
      ['reason', string],
    ]),
  ],
  [
    'kubernetes.NamespaceStatus',
    new Map<string, CelCheckedType>([
      ['conditions', T.list(T.struct('kubernetes.NamespaceCondition'))],
      ['phase', string],
    ]),
  ],
  [
    'kubernetes.NamespaceMetadata',
    new Map<string, CelCheckedType>([
      ['name', string],
      ['generateName', string],
      ['namespace', string],
      ['labels', T.map(string, string)],
      ['annotations', T.map(string, string)],
      ['UID', string],
      ['creationTimestamp', timestamp],
      ['deletionGracePeriodSeconds', int],
      ['deletionTimestamp', timestamp],
      ['generation', int],
      ['resourceVersion', string],
      ['finalizers', listOfString],
    ]),
  ],
  [
    'kubernetes.Namespace',
    new Map<string, CelCheckedType>([
      ['metadata', T.struct('kubernetes.NamespaceMetadata')],
      ['spec', T.struct('kubernetes.NamespaceSpec')],
      ['status', T.struct('kubernetes.NamespaceStatus')],
    ]),
  ],
]);

export interface AdmissionEnvironmentOptions {
  /** The policy has a paramKind: `params` is declared. */
  params: boolean;
  /** `authorizer` and `authorizer.requestResource` are declared (not in messageExpressions). */
  authorizer: boolean;
  /** A policy's variables in order with their types; undefined where `variables` is not declared. */
  variables?: ReadonlyArray<readonly [string, CelCheckedType]>;
}

/** A checker environment with a signature that tells apart environments declaring different things. */
export interface AdmissionEnvironment extends CelCheckEnvironment {
  readonly signature: string;
}

/** The declarations admission expressions are checked against. */
export function admissionEnvironment(options: AdmissionEnvironmentOptions): AdmissionEnvironment {
  const variables = new Map<string, CelCheckedType>([
    ['object', dyn],
    ['oldObject', dyn],
    ['namespaceObject', T.struct('kubernetes.Namespace')],
    ['request', T.struct('kubernetes.AdmissionRequest')],
  ]);
  if (options.params) variables.set('params', dyn);
  if (options.authorizer) {
    variables.set('authorizer', K8S_TYPES.authorizer);
    variables.set('authorizer.requestResource', K8S_TYPES.resourceCheck);
  }
  const structs = new Map(STRUCTS);
  if (options.variables !== undefined) {
    variables.set('variables', T.struct('kubernetes.variables'));
    structs.set('kubernetes.variables', new Map(options.variables));
  }
  const signature = JSON.stringify([options.params, options.authorizer, options.variables?.map(([n, t]) => [n, typeString(t)]) ?? null]);
  return { variables, structs, signature };
}

/** cel-go's Type.String(): the names `must evaluate to ... but got ...` prints (`google.protobuf.Timestamp`, `null_type`). */
export function typeString(t: CelCheckedType): string {
  const params = typeParams(t);
  let name: string;
  switch (t.kind) {
    case 'struct':
    case 'opaque':
    case 'param':
      name = t.name;
      break;
    case 'null':
      name = 'null_type';
      break;
    case 'duration':
      name = 'google.protobuf.Duration';
      break;
    case 'timestamp':
      name = 'google.protobuf.Timestamp';
      break;
    default:
      name = t.kind;
  }
  return params.length === 0 ? name : `${name}(${params.map(typeString).join(', ')})`;
}

/**
 * The type a variable's value has for later expressions (Kubernetes' convertCelTypeToDeclType):
 * scalars and lists and maps of them keep theirs; objects, optionals and library types are dyn.
 */
export function variableType(t: CelCheckedType): CelCheckedType {
  switch (t.kind) {
    case 'bool':
    case 'bytes':
    case 'double':
    case 'duration':
    case 'int':
    case 'null':
    case 'string':
    case 'timestamp':
    case 'uint':
    case 'dyn':
      return t;
    case 'list':
      return T.list(variableType(t.elem));
    case 'map':
      return T.map(variableType(t.key), variableType(t.value));
    default:
      return dyn;
  }
}

export type AdmissionExpressionKind = 'validation' | 'messageExpression' | 'variable' | 'matchCondition' | 'auditAnnotation';

const RETURN_TYPES: Record<AdmissionExpressionKind, CelCheckedType[] | undefined> = {
  validation: [bool],
  matchCondition: [bool],
  messageExpression: [string],
  auditAnnotation: [string, T.null],
  variable: undefined,
};

/**
 * Compiles an admission expression as Kubernetes' CompileCELExpression does: its type must be one
 * of what its kind returns (`must evaluate to bool but got dyn`). Throws with Kubernetes' detail.
 */
export function compileAdmissionExpression(expression: string, kind: AdmissionExpressionKind, env: AdmissionEnvironment): CelProgram {
  const program = compileCel(expression, env);
  const expected = RETURN_TYPES[kind];
  if (expected !== undefined && !expected.some((t) => typeString(t) === typeString(program.outputType))) {
    const got = typeString(program.outputType);
    throw new Error(
      expected.length === 1
        ? `must evaluate to ${typeString(expected[0])} but got ${got}`
        : `must evaluate to one of [${expected.map(typeString).join(' ')}] but got ${got}`,
    );
  }
  return program;
}

interface PolicySpecLike {
  paramKind?: unknown;
  matchConditions?: ReadonlyArray<{ name?: string; expression?: string }>;
  variables?: ReadonlyArray<{ name?: string; expression?: string }>;
  validations?: ReadonlyArray<{ expression?: string; messageExpression?: string }>;
  auditAnnotations?: ReadonlyArray<{ valueExpression?: string }>;
}

/** The environments of a policy's expressions: its variables compiled in order, each seeing those before it. */
export interface PolicyEnvironments {
  /** validations and auditAnnotations. */
  expressions: AdmissionEnvironment;
  /** messageExpressions: no authorizer. */
  messages: AdmissionEnvironment;
  /** matchConditions: no variables. */
  conditions: AdmissionEnvironment;
  /** Each variable's environment (the variables before it). */
  variables: AdmissionEnvironment[];
  /** Why each variable failed to compile, by index. */
  variableErrors: Map<number, string>;
}

const environments = new Map<string, PolicyEnvironments>();
const ENVIRONMENT_CACHE_SIZE = 256;

/** The environments of a ValidatingAdmissionPolicy's expressions; cached by what they depend on. */
export function policyEnvironments(spec: PolicySpecLike): PolicyEnvironments {
  const params = spec.paramKind !== undefined && spec.paramKind !== null;
  const key = JSON.stringify([params, (spec.variables ?? []).map((v) => [v.name, v.expression])]);
  const cached = environments.get(key);
  if (cached !== undefined) return cached;
  const declared: Array<[string, CelCheckedType]> = [];
  const composed = (spec.variables ?? []).length > 0;
  const variables: AdmissionEnvironment[] = [];
  const variableErrors = new Map<number, string>();
  (spec.variables ?? []).forEach((v, i) => {
    const env = admissionEnvironment({ params, authorizer: true, variables: [...declared] });
    variables.push(env);
    let type: CelCheckedType = dyn;
    try {
      type = variableType(compileAdmissionExpression(String(v.expression ?? ''), 'variable', env).outputType);
    } catch (error) {
      variableErrors.set(i, (error as Error).message);
    }
    declared.push([String(v.name ?? ''), type]);
  });
  const finalVariables = composed ? declared : undefined;
  const result: PolicyEnvironments = {
    expressions: admissionEnvironment({ params, authorizer: true, variables: finalVariables }),
    messages: admissionEnvironment({ params, authorizer: false, variables: finalVariables }),
    conditions: admissionEnvironment({ params, authorizer: true }),
    variables,
    variableErrors,
  };
  if (environments.size >= ENVIRONMENT_CACHE_SIZE) environments.delete(environments.keys().next().value as string);
  environments.set(key, result);
  return result;
}

/** The environment of a webhook's matchConditions: no params, no variables. */
export const WEBHOOK_CONDITION_ENVIRONMENT: AdmissionEnvironment = admissionEnvironment({ params: false, authorizer: true });

function expressionError(path: string, expression: string, compile: () => unknown): FieldError[] {
  try {
    compile();
    return [];
  } catch (error) {
    return [fieldErrors.invalid(path, expression, (error as Error).message)];
  }
}

/** Kubernetes' write-time compilation of matchConditions (trimmed, as it compiles them). */
export function matchConditionErrors(conditions: PolicySpecLike['matchConditions'], path: string, env: AdmissionEnvironment): FieldError[] {
  const errors: FieldError[] = [];
  (conditions ?? []).forEach((c, i) => {
    const expression = typeof c.expression === 'string' ? c.expression.trim() : '';
    if (expression === '') return;
    errors.push(...expressionError(`${path}[${i}].expression`, expression, () => compileAdmissionExpression(expression, 'matchCondition', env)));
  });
  return errors;
}

/**
 * The errors Kubernetes' validation of a ValidatingAdmissionPolicy finds in its expressions: each
 * compiled against the declarations it has, with cel-go's messages.
 */
export function policyExpressionErrors(spec: PolicySpecLike): FieldError[] {
  const envs = policyEnvironments(spec);
  const errors = matchConditionErrors(spec.matchConditions, 'spec.matchConditions', envs.conditions);
  (spec.variables ?? []).forEach((v, i) => {
    const failure = envs.variableErrors.get(i);
    if (failure !== undefined && typeof v.expression === 'string' && v.expression.trim() !== '') {
      errors.push(fieldErrors.invalid(`spec.variables[${i}].expression`, v.expression, failure));
    }
  });
  (spec.validations ?? []).forEach((v, i) => {
    if (typeof v.expression === 'string' && v.expression.trim() !== '') {
      const source = v.expression;
      errors.push(...expressionError(`spec.validations[${i}].expression`, source, () => compileAdmissionExpression(source, 'validation', envs.expressions)));
    }
    if (typeof v.messageExpression === 'string' && v.messageExpression.trim() !== '') {
      const source = v.messageExpression;
      errors.push(
        ...expressionError(`spec.validations[${i}].messageExpression`, source, () => compileAdmissionExpression(source, 'messageExpression', envs.messages)),
      );
    }
  });
  (spec.auditAnnotations ?? []).forEach((a, i) => {
    const source = typeof a.valueExpression === 'string' ? a.valueExpression.trim() : '';
    if (source === '') return;
    errors.push(
      ...expressionError(`spec.auditAnnotations[${i}].valueExpression`, String(a.valueExpression), () =>
        compileAdmissionExpression(source, 'auditAnnotation', envs.expressions),
      ),
    );
  });
  return errors;
}
