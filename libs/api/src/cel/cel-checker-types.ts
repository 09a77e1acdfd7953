/**
 * The types of CEL's type checker and their unification, as cel-go's checker computes them
 * (checker/types.go and common/types/types.go of cel-go v0.22, the version Kubernetes 1.32 builds
 * with): assignability with type parameters and a substitution map, the most general of two types,
 * and the printed names its error messages use (`list(int)`, `map(string, dyn)`, `optional_type(A)`).
 */

type SimpleKind = 'dyn' | 'error' | 'null' | 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'duration' | 'timestamp';

export type CelCheckedType =
  | { readonly kind: SimpleKind }
  | { readonly kind: 'list'; readonly elem: CelCheckedType }
  | { readonly kind: 'map'; readonly key: CelCheckedType; readonly value: CelCheckedType }
  /** An object type with declared fields (a schema's object, kubernetes.AdmissionRequest, ...). */
  | { readonly kind: 'struct'; readonly name: string }
  /** An abstract type: optional_type(T), net.IP, net.CIDR, function(...). */
  | { readonly kind: 'opaque'; readonly name: string; readonly params: readonly CelCheckedType[] }
  /** A type as a value: `type(int)`, or `type` when its parameter is unknown. */
  | { readonly kind: 'type'; readonly param?: CelCheckedType }
  | { readonly kind: 'param'; readonly name: string };

const simple = (kind: SimpleKind): CelCheckedType => ({ kind });

export const T = {
  dyn: simple('dyn'),
  error: simple('error'),
  null: simple('null'),
  bool: simple('bool'),
  int: simple('int'),
  uint: simple('uint'),
  double: simple('double'),
  string: simple('string'),
  bytes: simple('bytes'),
  duration: simple('duration'),
  timestamp: simple('timestamp'),
  list: (elem: CelCheckedType): CelCheckedType => ({ kind: 'list', elem }),
  map: (key: CelCheckedType, value: CelCheckedType): CelCheckedType => ({ kind: 'map', key, value }),
  struct: (name: string): CelCheckedType => ({ kind: 'struct', name }),
  opaque: (name: string, ...params: CelCheckedType[]): CelCheckedType => ({ kind: 'opaque', name, params }),
  optional: (param: CelCheckedType): CelCheckedType => ({ kind: 'opaque', name: 'optional_type', params: [param] }),
  type: (param?: CelCheckedType): CelCheckedType => (param === undefined ? { kind: 'type' } : { kind: 'type', param }),
  param: (name: string): CelCheckedType => ({ kind: 'param', name }),
};

/** A type's parameters, in cel-go's order (a list's element; a map's key and value; an opaque type's). */
export function typeParams(t: CelCheckedType): readonly CelCheckedType[] {
  switch (t.kind) {
    case 'list':
      return [t.elem];
    case 'map':
      return [t.key, t.value];
    case 'opaque':
      return t.params;
    case 'type':
      return t.param === undefined ? [] : [t.param];
    default:
      return [];
  }
}

/** cel-go's TypeName: the runtime name, without parameters. */
function typeName(t: CelCheckedType): string {
  switch (t.kind) {
    case 'struct':
    case 'opaque':
    case 'param':
      return t.name;
    case 'null':
      return 'null_type';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    default:
      return t.kind;
  }
}

/** cel-go's FormatCELType: how the checker's messages print a type. */
export function formatType(t: CelCheckedType, depth = 0): string {
  if (depth > 50) return '...';
  switch (t.kind) {
    case 'error':
      return '!error!';
    case 'null':
      return 'null';
    case 'duration':
    case 'timestamp':
      return t.kind;
    case 'param':
      return t.name;
    default:
      break;
  }
  const params = typeParams(t);
  if (params.length === 0) return typeName(t);
  return `${typeName(t)}(${params.map((p) => formatType(p, depth + 1)).join(', ')})`;
}

/** cel-go's IsExactType (or IsEquivalentType when type parameter names are not compared). */
export function sameType(a: CelCheckedType, b: CelCheckedType, compareParamNames = true, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 50) return false;
  if (a.kind !== b.kind) return false;
  const pa = typeParams(a);
  const pb = typeParams(b);
  if (pa.length !== pb.length) return false;
  if ((compareParamNames || a.kind !== 'param') && typeName(a) !== typeName(b)) return false;
  return pa.every((p, i) => sameType(p, pb[i], compareParamNames, depth + 1));
}

const isDyn = (t: CelCheckedType) => t.kind === 'dyn';
const isDynOrError = (t: CelCheckedType) => t.kind === 'dyn' || t.kind === 'error';

/** The substitutions of type parameters found so far, keyed by the parameter's printed name. */
export class Substitutions {
  constructor(private readonly map = new Map<string, CelCheckedType>()) {}

  find(t: CelCheckedType): CelCheckedType | undefined {
    return this.map.get(formatType(t));
  }

  add(from: CelCheckedType, to: CelCheckedType): void {
    this.map.set(formatType(from), to);
  }

  copy(): Substitutions {
    return new Substitutions(new Map(this.map));
  }
}

/** cel-go's isEqualOrLessSpecific. */
function isEqualOrLessSpecific(t1: CelCheckedType, t2: CelCheckedType, depth = 0): boolean {
  if (isDyn(t1) || t1.kind === 'param') return true;
  if (isDyn(t2) || t2.kind === 'param') return false;
  if (t1.kind !== t2.kind || depth > 50) return false;
  switch (t1.kind) {
    case 'opaque': {
      const p1 = t1.params;
      const p2 = typeParams(t2);
      if (typeName(t1) !== typeName(t2) || p1.length !== p2.length) return false;
      return p1.every((p, i) => isEqualOrLessSpecific(p, p2[i], depth + 1));
    }
    case 'list':
      return isEqualOrLessSpecific(t1.elem, (t2 as typeof t1).elem, depth + 1);
    case 'map': {
      const m2 = t2 as typeof t1;
      return isEqualOrLessSpecific(t1.key, m2.key, depth + 1) && isEqualOrLessSpecific(t1.value, m2.value, depth + 1);
    }
    case 'type':
      return true;
    default:
      return sameType(t1, t2);
  }
}

/** The more general of two types known to unify. */
export function mostGeneral(t1: CelCheckedType, t2: CelCheckedType): CelCheckedType {
  return isEqualOrLessSpecific(t1, t2) ? t1 : t2;
}

/** The occurs check: whether `t` does not appear within `within`. */
function notReferencedIn(m: Substitutions, t: CelCheckedType, within: CelCheckedType, depth = 0): boolean {
  if (sameType(t, within)) return false;
  if (depth > 50) return true;
  switch (within.kind) {
    case 'param': {
      const sub = m.find(within);
      return sub === undefined ? true : notReferencedIn(m, t, sub, depth + 1);
    }
    case 'opaque':
    case 'list':
    case 'map':
    case 'type':
      return typeParams(within).every((p) => notReferencedIn(m, t, p, depth + 1));
    default:
      return true;
  }
}

function isValidTypeSubstitution(m: Substitutions, t1: CelCheckedType, t2: CelCheckedType, depth: number): { valid: boolean; hasSub: boolean } {
  if (t1.kind === t2.kind && sameType(t1, t2)) return { valid: true, hasSub: true };
  const t2Sub = m.find(t2);
  if (t2Sub !== undefined) {
    if (t1.kind === t2Sub.kind && sameType(t1, t2Sub)) return { valid: true, hasSub: true };
    if (internalIsAssignable(m, t1, t2Sub, depth + 1)) {
      const t2New = mostGeneral(t1, t2Sub);
      if (notReferencedIn(m, t2, t2New)) m.add(t2, t2New);
      return { valid: true, hasSub: true };
    }
    return { valid: false, hasSub: true };
  }
  if (notReferencedIn(m, t2, t1)) {
    m.add(t2, t1);
    return { valid: true, hasSub: false };
  }
  return { valid: false, hasSub: false };
}

/** Types a null is assignable to, as the legacy checker kept them. */
function isLegacyNullable(t: CelCheckedType): boolean {
  return t.kind === 'opaque' || t.kind === 'struct' || t.kind === 'duration' || t.kind === 'timestamp';
}

/** cel-go's Type.IsAssignableType for the non-parameterized kinds (no wrappers are declared here). */
function typeIsAssignableFrom(target: CelCheckedType, from: CelCheckedType): boolean {
  if (target === from || target.kind === 'dyn' || target.kind === 'param') return true;
  if (target.kind !== from.kind || typeName(target) !== typeName(from)) return false;
  const pt = typeParams(target);
  const pf = typeParams(from);
  if (pt.length !== pf.length) return false;
  return pt.every((p, i) => typeIsAssignableFrom(p, pf[i]));
}

function internalIsAssignable(m: Substitutions, t1: CelCheckedType, t2: CelCheckedType, depth = 0): boolean {
  if (depth > 100) return false;
  if (t2.kind === 'param') {
    const { valid, hasSub } = isValidTypeSubstitution(m, t1, t2, depth);
    if (valid) return true;
    if (hasSub) return false;
  }
  if (t1.kind === 'param') return isValidTypeSubstitution(m, t2, t1, depth).valid;
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (t1.kind === 'null') return isLegacyNullable(t2) || t2.kind === 'null';
  if (t2.kind === 'null') return isLegacyNullable(t1);
  switch (t1.kind) {
    case 'bool':
    case 'bytes':
    case 'double':
    case 'int':
    case 'string':
    case 'uint':
    case 'duration':
    case 'timestamp':
    case 'struct':
      return typeIsAssignableFrom(t2, t1);
    case 'type':
      return t2.kind === 'type';
    case 'opaque':
    case 'list':
    case 'map': {
      if (t1.kind !== t2.kind || typeName(t1) !== typeName(t2)) return false;
      return internalIsAssignableList(m, typeParams(t1), typeParams(t2), depth + 1);
    }
    default:
      return false;
  }
}

function internalIsAssignableList(m: Substitutions, l1: readonly CelCheckedType[], l2: readonly CelCheckedType[], depth = 0): boolean {
  if (l1.length !== l2.length) return false;
  return l1.every((t, i) => internalIsAssignable(m, t, l2[i], depth + 1));
}

/** The substitutions under which `t1` is assignable to `t2`, or undefined. */
export function isAssignable(m: Substitutions, t1: CelCheckedType, t2: CelCheckedType): Substitutions | undefined {
  const copy = m.copy();
  return internalIsAssignable(copy, t1, t2) ? copy : undefined;
}

export function isAssignableList(m: Substitutions, l1: readonly CelCheckedType[], l2: readonly CelCheckedType[]): Substitutions | undefined {
  const copy = m.copy();
  return internalIsAssignableList(copy, l1, l2) ? copy : undefined;
}

/** Replaces bound type parameters by their values; unbound ones by dyn when `paramToDyn`. */
export function substitute(m: Substitutions, t: CelCheckedType, paramToDyn: boolean, depth = 0): CelCheckedType {
  if (depth > 100) return T.dyn;
  const sub = m.find(t);
  if (sub !== undefined) return substitute(m, sub, paramToDyn, depth + 1);
  switch (t.kind) {
    case 'param':
      return paramToDyn ? T.dyn : t;
    case 'opaque':
      return { kind: 'opaque', name: t.name, params: t.params.map((p) => substitute(m, p, paramToDyn, depth + 1)) };
    case 'list':
      return T.list(substitute(m, t.elem, paramToDyn, depth + 1));
    case 'map':
      return T.map(substitute(m, t.key, paramToDyn, depth + 1), substitute(m, t.value, paramToDyn, depth + 1));
    case 'type':
      return t.param === undefined ? t : T.type(substitute(m, t.param, paramToDyn, depth + 1));
    default:
      return t;
  }
}

/** Renames the type parameters of a declaration apart (`A` becomes a fresh `_var3`). */
export function instantiate(t: CelCheckedType, fresh: ReadonlyMap<string, CelCheckedType>, depth = 0): CelCheckedType {
  if (depth > 50) return t;
  switch (t.kind) {
    case 'param':
      return fresh.get(t.name) ?? t;
    case 'opaque':
      return { kind: 'opaque', name: t.name, params: t.params.map((p) => instantiate(p, fresh, depth + 1)) };
    case 'list':
      return T.list(instantiate(t.elem, fresh, depth + 1));
    case 'map':
      return T.map(instantiate(t.key, fresh, depth + 1), instantiate(t.value, fresh, depth + 1));
    case 'type':
      return t.param === undefined ? t : T.type(instantiate(t.param, fresh, depth + 1));
    default:
      return t;
  }
}

/** The names of the type parameters a type mentions. */
export function paramNames(t: CelCheckedType, into = new Set<string>(), depth = 0): Set<string> {
  if (depth > 50) return into;
  if (t.kind === 'param') into.add(t.name);
  for (const p of typeParams(t)) paramNames(p, into, depth + 1);
  return into;
}

export function isOptionalType(t: CelCheckedType): t is Extract<CelCheckedType, { kind: 'opaque' }> {
  return t.kind === 'opaque' && t.name === 'optional_type';
}
