import { celError, celList, isCelError, isCelList, isCelMap, type CelList } from '@bufbuild/cel';
import { callAuthorizer, NOT_AUTHORIZER_CALL } from './cel-authorizer-library';
import { CelFormat, FORMAT_NAMES, formatNamed, namedFormat } from './cel-format-library';
import { callQuantity, ipIsCanonical, NOT_A_QUANTITY_CALL } from './cel-kubernetes-libraries';
import { celEquals, CelOpaqueValue, CelOptional, isZeroValue, noSuchOverload, opaqueType } from './cel-values';

/**
 * The functions the interpreter answers itself rather than the engine: those of the types the engine
 * cannot hold (optional values, formats), those whose operands may be such values (equality, `in`,
 * type()), and cel-go's sets extension, which the engine lacks. Each returns its value (or a CEL
 * error), or NOT_OURS when the call belongs to the engine's standard library.
 */

export const NOT_OURS: unique symbol = Symbol('not ours');

/** Global functions with a namespace (`optional.of`): the parser reads them as member calls on an identifier. */
export const QUALIFIED_FUNCTIONS: ReadonlySet<string> = new Set([
  'optional.of',
  'optional.none',
  'optional.ofNonZeroValue',
  'format.named',
  ...FORMAT_NAMES.map((name) => `format.${name}`),
  'sets.contains',
  'sets.equivalent',
  'sets.intersects',
  'strings.quote',
  'ip.isCanonical',
]);

/** Every function name this file answers (for the compile-time check of undeclared functions). */
export const EXTENSION_FUNCTION_NAMES: ReadonlySet<string> = new Set([
  ...QUALIFIED_FUNCTIONS,
  'hasValue',
  'value',
  'or',
  'orValue',
  'validate',
  'quantity',
  'sign',
  'isInteger',
  'asInteger',
  'asApproximateFloat',
  'compareTo',
  'isLessThan',
  'isGreaterThan',
  'add',
  'sub',
  '_?._',
  '_[?_]',
]);

function listContains(list: CelList, needle: unknown): boolean {
  for (const item of list) if (celEquals(needle, item) === true) return true;
  return false;
}

function setsContains(list: CelList, sublist: CelList): boolean {
  for (const item of sublist) if (!listContains(list, item)) return false;
  return true;
}

function lists(args: readonly unknown[]): [CelList, CelList] | undefined {
  const [a, b] = args;
  return args.length === 2 && isCelList(a) && isCelList(b) ? [a, b] : undefined;
}

function anyOpaque(values: readonly unknown[]): boolean {
  return values.some((v) => v instanceof CelOpaqueValue);
}

/**
 * The value of `name` applied to `target` (undefined for a global call) and `args`, or NOT_OURS.
 * Operands are values, never errors (the caller stops at the first error).
 */
export function callExtension(name: string, target: unknown, args: readonly unknown[]): unknown {
  const member = target !== undefined;
  const operands = member ? [target, ...args] : args;
  switch (name) {
    case '_==_':
    case '_!=_': {
      if (operands.length !== 2) return NOT_OURS;
      const eq = celEquals(operands[0], operands[1]);
      if (isCelError(eq)) return eq;
      return name === '_==_' ? eq : !eq;
    }
    case '@in': {
      if (operands.length !== 2) return NOT_OURS;
      const [needle, haystack] = operands;
      if (isCelList(haystack)) return listContains(haystack, needle);
      if (isCelMap(haystack) && needle instanceof CelOpaqueValue) return false;
      return NOT_OURS;
    }
    case 'ip.isCanonical':
      return !member && typeof args[0] === 'string' ? ipIsCanonical(args[0]) : noSuchOverload(name, operands);
    case 'type':
      if (!member && args.length === 1 && args[0] instanceof CelOpaqueValue) return opaqueType(args[0]);
      return NOT_OURS;
    case 'dyn':
      if (!member && args.length === 1 && args[0] instanceof CelOpaqueValue) return args[0];
      return NOT_OURS;
    case 'optional.of':
      return args.length === 1 && !member ? CelOptional.of(args[0]) : noSuchOverload(name, operands);
    case 'optional.ofNonZeroValue':
      return args.length === 1 && !member ? (isZeroValue(args[0]) ? CelOptional.NONE : CelOptional.of(args[0])) : noSuchOverload(name, operands);
    case 'optional.none':
      return args.length === 0 && !member ? CelOptional.NONE : noSuchOverload(name, operands);
    case 'hasValue':
      if (target instanceof CelOptional && args.length === 0) return target.hasValue();
      return noSuchOverload(name, operands);
    case 'value':
      if (target instanceof CelOptional && args.length === 0) return target.value();
      return noSuchOverload(name, operands);
    case 'format.named':
      if (!member && args.length === 1 && typeof args[0] === 'string') return formatNamed(args[0]);
      return noSuchOverload(name, operands);
    case 'validate':
      if (target instanceof CelFormat && args.length === 1 && typeof args[0] === 'string') return target.validate(args[0]);
      return noSuchOverload(name, operands);
    case 'sets.contains':
    case 'sets.equivalent':
    case 'sets.intersects': {
      const pair = lists(operands);
      if (pair === undefined) return noSuchOverload(name, operands);
      const [a, b] = pair;
      if (name === 'sets.contains') return setsContains(a, b);
      if (name === 'sets.equivalent') return setsContains(a, b) && setsContains(b, a);
      for (const item of a) if (listContains(b, item)) return true;
      return false;
    }
    default:
      break;
  }
  const authorized = callAuthorizer(name, target, args);
  if (authorized !== NOT_AUTHORIZER_CALL) return authorized;
  // Kubernetes 1.32 declares sign() as a global function of a quantity.
  const quantity = name === 'sign' && !member && args.length === 1 ? callQuantity(name, args[0], []) : callQuantity(name, target, args);
  if (quantity !== NOT_A_QUANTITY_CALL) return quantity;
  if (name.startsWith('format.')) {
    const format = namedFormat(name.slice('format.'.length));
    if (format !== undefined) return !member && args.length === 0 ? format : noSuchOverload(name, operands);
  }
  // Any other function applied to one of our values has no overload: the engine cannot look into them.
  if (anyOpaque(operands)) return noSuchOverload(name, operands);
  return NOT_OURS;
}

/** `x.?field` and `x[?key]`: optional.of the value where it is present, optional.none() where not. */
export function optionalAccess(operand: unknown, key: unknown): unknown {
  let value = operand;
  if (value instanceof CelOptional) {
    if (!value.hasValue()) return CelOptional.NONE;
    value = value.value();
  }
  if (isCelMap(value)) {
    if (key instanceof CelOpaqueValue) return CelOptional.NONE;
    const found = value.get(key as never);
    return found === undefined ? CelOptional.NONE : CelOptional.of(found);
  }
  if (isCelList(value)) {
    const index = listIndex(key);
    if (typeof index !== 'number') return index;
    return index >= 0 && index < value.size ? CelOptional.of(value.get(index)) : CelOptional.NONE;
  }
  return CelOptional.NONE;
}

/** A list index as cel-go takes it: an int, or a uint or double with an integral value. */
function listIndex(key: unknown): unknown {
  if (typeof key === 'bigint') return Number(key);
  if (typeof key === 'number') return Number.isInteger(key) ? key : celError(`unsupported index value ${key} in list`);
  if (typeof key === 'object' && key !== null && 'value' in key && typeof key.value === 'bigint') return Number((key as { value: bigint }).value);
  return celError(`unsupported index type '${typeof key}' in list`);
}

/** Elements of a list literal with optional entries (`[a, ?b]`): a none is left out, a value is taken out. */
export function optionalListElements(values: readonly unknown[], optional: ReadonlySet<number>): unknown {
  const out: unknown[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!optional.has(i)) {
      out.push(v);
      continue;
    }
    if (!(v instanceof CelOptional)) return celError(`cannot initialize optional list element from non-optional value ${String(v)}`);
    if (v.hasValue()) out.push(v.value());
  }
  return celList(out as Parameters<typeof celList>[0]);
}
