import type { CelProgram } from './cel-environment';
import { DECL, type CelDeclType } from './cel-decl-type';
import { MAX_NAME_FORMAT_REGEX_SIZE, MAX_FORMAT_SIZE } from './cel-format-library';

/**
 * The estimated cost of a CEL expression, computed as cel-go's checker does it (checker/cost.go of
 * cel-go v0.22, the version Kubernetes 1.32 builds with) with Kubernetes' function costs
 * (k8s.io/apiserver/pkg/cel/library/cost.go): one unit per identifier and field selected on a map or
 * struct, a tenth of a unit per byte a string function walks, list and map literals 10 and 30, each
 * comprehension its range's size times its loop. Sizes come from the paths of values into the
 * declared types (a schema's maxLength / maxItems / maxProperties); a value with no known size is as
 * large as 2^64 - 1, and the figures saturate there, as cel-go's uint64 arithmetic does.
 */

/** Kubernetes' per-expression budget for an estimated cost (StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' budget for all rules of one CRD version, each multiplied by its cardinality (StaticEstimatedCRDCostLimit). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Kubernetes' runtime limit of one evaluation (celconfig.PerCallLimit). */
export const PER_CALL_COST_LIMIT = 1_000_000;
/** Kubernetes' runtime budget of all rules of one custom resource or policy binding (celconfig.RuntimeCELCostBudget). */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** Kubernetes' runtime budget of the match conditions of one binding or webhook (RuntimeCELCostBudgetMatchConditions). */
export const RUNTIME_MATCH_CONDITIONS_BUDGET = 2_500_000;
export { MAX_REQUEST_SIZE_BYTES } from './cel-decl-type';

export const U64_MAX = (1n << 64n) - 1n;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10n;
const MAP_CREATE = 30n;
const STRUCT_CREATE = 40n;
/** The accumulator of a macro's comprehension (cel-go's `__result__`): its paths lead to no declared type. */
const ACCUMULATOR = '@result';

/** A range of costs or sizes, in cel-go's unsigned 64-bit arithmetic. */
export interface Range {
  min: bigint;
  max: bigint;
}

const range = (min: bigint, max: bigint = min): Range => ({ min, max });
const ZERO = range(0n);
const ONE = range(1n);
const UNKNOWN_SIZE = range(0n, U64_MAX);

const add1 = (x: bigint, y: bigint) => (x + y > U64_MAX ? U64_MAX : x + y);
const mul1 = (x: bigint, y: bigint) => (x * y > U64_MAX ? U64_MAX : x * y);
/** cel-go's multiplyByCostFactor: through a float64, rounded up. */
function factor1(x: bigint, y: number): bigint {
  const product = Math.ceil(Number(x) * y);
  return product >= 2 ** 64 ? U64_MAX : BigInt(product);
}
const add = (a: Range, b: Range): Range => range(add1(a.min, b.min), add1(a.max, b.max));
const mul = (a: Range, b: Range): Range => range(mul1(a.min, b.min), mul1(a.max, b.max));
const byFactor = (a: Range, y: number): Range => range(factor1(a.min, y), factor1(a.max, y));
const union = (a: Range, b: Range): Range => range(a.min < b.min ? a.min : b.min, a.max > b.max ? a.max : b.max);

type Expr = CelProgram['ast'];

/** What the estimator knows of a node: its type, its path into the declared types, a size it computed. */
interface Node {
  expr: Expr | undefined;
  type: CelDeclType;
  path?: string[];
  computed?: Range;
}

/** Sizes of values by their path (`['self', 'spec', 'items', '@items']`); undefined where nothing is declared. */
export type SizeEstimator = (path: readonly string[]) => Range | undefined;

/** Kubernetes' estimator for CRD rules: every path starts at the rule's own node, whatever its variable. */
export function declaredSizes(root: CelDeclType): SizeEstimator {
  return (path) => {
    if (path.length === 0) return undefined;
    let current: CelDeclType | undefined = root;
    for (const name of path.slice(1)) {
      if (name === '@items' || name === '@values') current = current.elem;
      else if (name === '@keys') current = current.key;
      else current = current.fields?.[name];
      if (current === undefined) return undefined;
    }
    return range(0n, BigInt(current.maxElements));
  };
}

const isScalar = (t: CelDeclType) => ['bool', 'double', 'duration', 'int', 'timestamp', 'uint'].includes(t.kind);
const isDyn = (t: CelDeclType) => t.kind === 'dyn';

function literalSize(expr: Expr | undefined): Range | undefined {
  if (expr === undefined) return undefined;
  const kind = expr.exprKind;
  if (kind.case === 'constExpr') {
    const c = kind.value.constantKind;
    if (c.case === 'stringValue') return range(BigInt(codePoints(c.value)));
    if (c.case === 'bytesValue') return range(BigInt(c.value.length));
    if (c.case === undefined) return undefined;
    return ONE;
  }
  if (kind.case === 'listExpr') return range(BigInt(kind.value.elements.length));
  if (kind.case === 'structExpr' && kind.value.messageName === '') return range(BigInt(kind.value.entries.length));
  return undefined;
}

/** Characters of a string, as CEL's size() counts them (code points). */
export function codePoints(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function constType(expr: Expr): CelDeclType {
  const kind = expr.exprKind;
  if (kind.case !== 'constExpr') return DECL.dyn();
  switch (kind.value.constantKind.case) {
    case 'stringValue':
      return DECL.string();
    case 'bytesValue':
      return DECL.bytes();
    case 'boolValue':
      return DECL.bool();
    case 'int64Value':
      return DECL.int();
    case 'uint64Value':
      return DECL.uint();
    case 'doubleValue':
      return DECL.double();
    case 'nullValue':
      return DECL.null();
    default:
      return DECL.dyn();
  }
}

const STRING = DECL.string();
const BOOL = DECL.bool();
const INT = DECL.int();
const DOUBLE = DECL.double();
const DYN = DECL.dyn();
const QUANTITY = DECL.struct('kubernetes.Quantity');
const FORMAT = DECL.struct('kubernetes.NamedFormat');
const URL_TYPE = DECL.struct('kubernetes.URL');
const IP = DECL.opaque('net.IP');
const CIDR = DECL.opaque('net.IPPrefix');

const BOOL_FUNCTIONS = new Set([
  '_&&_',
  '_||_',
  '!_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '@in',
  '@not_strictly_false',
  'matches',
  'startsWith',
  'endsWith',
  'contains',
  'isSorted',
  'isURL',
  'isIP',
  'isCIDR',
  'isQuantity',
  'isInteger',
  'isLessThan',
  'isGreaterThan',
  'containsIP',
  'containsCIDR',
  'isUnspecified',
  'isLoopback',
  'isLinkLocalMulticast',
  'isLinkLocalUnicast',
  'isGlobalUnicast',
  'hasValue',
  'sets.contains',
  'sets.intersects',
  'sets.equivalent',
  'allowed',
  'errored',
  'bool',
]);
const INT_FUNCTIONS = new Set(['size', 'int', 'sign', 'asInteger', 'compareTo', 'family', 'prefixLength', 'lastIndexOf']);
const STRING_FUNCTIONS = new Set([
  'string',
  'lowerAscii',
  'upperAscii',
  'trim',
  'replace',
  'substring',
  'charAt',
  'join',
  'format',
  'strings.quote',
  'reverse',
  'getScheme',
  'getHost',
  'getHostname',
  'getPort',
  'getEscapedPath',
  'find',
  'reason',
  'error',
]);

/** The result type of a call, from its function and its operands' types: what cel-go's checker would deduce. */
function callType(name: string, operands: readonly CelDeclType[], args: readonly Node[]): CelDeclType {
  const first = operands[0] ?? DYN;
  if (BOOL_FUNCTIONS.has(name)) return BOOL;
  if (INT_FUNCTIONS.has(name)) return INT;
  if (STRING_FUNCTIONS.has(name)) return STRING;
  switch (name) {
    case 'indexOf':
      return INT;
    case 'split':
    case 'findAll':
      return DECL.list(STRING);
    case 'double':
    case 'asApproximateFloat':
      return DOUBLE;
    case 'uint':
      return DECL.uint();
    case 'bytes':
      return DECL.bytes();
    case 'duration':
      return DECL.duration();
    case 'timestamp':
      return DECL.timestamp();
    case 'type':
      return DECL.type();
    case 'dyn':
      return DYN;
    case 'url':
      return URL_TYPE;
    case 'getQuery':
      return DECL.map(STRING, DECL.list(STRING));
    case 'quantity':
    case 'add':
    case 'sub':
      return QUANTITY;
    case 'ip':
      return IP;
    case 'cidr':
    case 'masked':
      return CIDR;
    case '_+_':
    case '_-_':
    case '_*_':
    case '_/_':
    case '_%_': {
      const [a = DYN, b = DYN] = operands;
      if (a.kind === 'list' && b.kind === 'list') return isDyn(a.elem ?? DYN) ? b : a;
      return isDyn(a) ? b : a;
    }
    case '-_':
      return first;
    case '_[_]':
      if (first.kind === 'list' || first.kind === 'map') return first.elem ?? DYN;
      return DYN;
    case '_?_:_': {
      const t = args[1]?.type ?? DYN;
      return isDyn(t) ? (args[2]?.type ?? DYN) : t;
    }
    case 'min':
    case 'max':
    case 'sum':
      return first.kind === 'list' ? (first.elem ?? DYN) : DYN;
    case 'value':
    case 'orValue':
      return first.kind === 'optional' ? (first.elem ?? DYN) : DYN;
    case 'or':
      return first;
    case 'optional.of':
    case 'optional.ofNonZeroValue':
      return DECL.optional(first);
    case 'optional.none':
      return DECL.optional(DYN);
    case '_?._':
    case '_[?_]': {
      // The selection is optional from here on: the operand may itself be optional.
      const operand = first.kind === 'optional' ? (first.elem ?? DYN) : first;
      const field = args[1]?.expr?.exprKind;
      if (name === '_?._' && operand.kind === 'struct' && field?.case === 'constExpr' && field.value.constantKind.case === 'stringValue') {
        return DECL.optional(operand.fields?.[field.value.constantKind.value] ?? DYN);
      }
      if (operand.kind === 'map' || operand.kind === 'list') return DECL.optional(operand.elem ?? DYN);
      return DECL.optional(DYN);
    }
    case 'format.named':
      return DECL.optional(FORMAT);
    case 'validate':
      return DECL.optional(DECL.list(STRING));
    default:
      if (name.startsWith('format.')) return FORMAT;
      return DYN;
  }
}

/** The overload families whose costs differ; a dyn operand may be any of several (their costs are joined). */
function overloadsOf(name: string, target: Node | undefined, args: readonly Node[]): string[] {
  const operands = target ? [target, ...args] : [...args];
  const kindOf = (i: number) => operands[i]?.type.kind ?? 'dyn';
  switch (name) {
    case '_+_': {
      const k = kindOf(0) === 'dyn' ? kindOf(1) : kindOf(0);
      if (k === 'string') return ['add_string'];
      if (k === 'bytes') return ['add_bytes'];
      if (k === 'list') return ['add_list'];
      if (k === 'dyn') return ['add_string', 'add_bytes', 'add_list', 'add_other'];
      return ['add_other'];
    }
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_': {
      const k = kindOf(0) === 'dyn' ? kindOf(1) : kindOf(0);
      if (k === 'string' || k === 'bytes') return ['compare_string'];
      if (k === 'dyn') return ['compare_string', 'compare_other'];
      return ['compare_other'];
    }
    case '@in': {
      const k = args[1]?.type.kind ?? 'dyn';
      if (k === 'list') return ['in_list'];
      if (k === 'map') return ['in_map'];
      return ['in_list', 'in_map'];
    }
    case 'ip':
      return target ? ['cidr_ip'] : ['string_to_ip'];
    case 'containsIP':
      return args[0]?.type.kind === 'string'
        ? ['cidr_contains_ip_string']
        : args[0]?.type.kind === 'dyn'
          ? ['cidr_contains_ip_string', 'cidr_contains_ip_ip']
          : ['cidr_contains_ip_ip'];
    case 'containsCIDR':
      return args[0]?.type.kind === 'string'
        ? ['cidr_contains_cidr_string']
        : args[0]?.type.kind === 'dyn'
          ? ['cidr_contains_cidr_string', 'cidr_contains_cidr']
          : ['cidr_contains_cidr'];
    case 'string':
      return kindOf(0) === 'bytes' ? ['bytes_to_string'] : kindOf(0) === 'dyn' ? ['bytes_to_string', 'other'] : ['other'];
    case 'bytes':
      return kindOf(0) === 'string' ? ['string_to_bytes'] : kindOf(0) === 'dyn' ? ['string_to_bytes', 'other'] : ['other'];
    default:
      return [name];
  }
}

interface CallEstimate {
  cost: Range;
  resultSize?: Range;
}

class Coster {
  /** The range node of each comprehension variable in scope, innermost last. */
  private readonly iterRanges = new Map<string, Node[]>();
  private readonly scopes: Array<Map<string, CelDeclType>> = [];

  constructor(
    private readonly variables: Readonly<Record<string, CelDeclType>>,
    private readonly sizes: SizeEstimator,
  ) {}

  /** The node as cel-go's estimator is handed it: paths rooted at an accumulator are dropped. */
  private astNode(n: Node): Node {
    return n.path && n.path[0] === ACCUMULATOR ? { ...n, path: undefined } : n;
  }

  private estimatedSize(n: Node): Range | undefined {
    return n.path && n.path.length > 0 ? this.sizes(n.path) : undefined;
  }

  /** cel-go's coster.sizeEstimate: computed, then declared, then 1 for scalars. */
  private sizeEstimate(n: Node): Range {
    const node = this.astNode(n);
    return node.computed ?? literalSize(node.expr) ?? this.estimatedSize(node) ?? (isScalar(node.type) ? ONE : UNKNOWN_SIZE);
  }

  /** Kubernetes' CostEstimator.sizeEstimate: as cel-go's, without the fallback for scalars. */
  private librarySize(n: Node): Range {
    const node = this.astNode(n);
    return node.computed ?? literalSize(node.expr) ?? this.estimatedSize(node) ?? UNKNOWN_SIZE;
  }

  private lookup(name: string): CelDeclType | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i].get(name);
      if (t !== undefined) return t;
    }
    return this.variables[name];
  }

  cost(expr: Expr, depth = 0): [Range, Node] {
    if (depth > 250) return [range(U64_MAX), { expr, type: DYN }];
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'constExpr':
        return [ZERO, { expr, type: constType(expr) }];
      case 'identExpr': {
        const name = kind.value.name;
        const ranges = this.iterRanges.get(name);
        const iterRange = ranges?.[ranges.length - 1];
        const type = this.lookup(name) ?? DYN;
        let path: string[] | undefined;
        if (iterRange) {
          if (iterRange.type.kind === 'list') path = [...(iterRange.path ?? []), '@items'];
          else if (iterRange.type.kind === 'map') path = [...(iterRange.path ?? []), '@keys'];
        } else path = [name];
        return [ONE, { expr, type, path }];
      }
      case 'selectExpr': {
        const sel = kind.value;
        if (!sel.operand) return [ZERO, { expr, type: DYN }];
        const [operandCost, operand] = this.cost(sel.operand, depth + 1);
        if (sel.testOnly) return [operandCost, { expr, type: BOOL }];
        const t = operand.type;
        const selects = t.kind === 'map' || t.kind === 'struct';
        const type = t.kind === 'struct' ? (t.fields?.[sel.field] ?? DYN) : t.kind === 'map' ? (t.elem ?? DYN) : DYN;
        return [selects ? add(operandCost, ONE) : operandCost, { expr, type, path: [...(operand.path ?? []), sel.field] }];
      }
      case 'callExpr':
        return this.call(expr, kind.value, depth);
      case 'listExpr': {
        let sum = ZERO;
        let elem: CelDeclType | undefined;
        for (const e of kind.value.elements) {
          const [c, n] = this.cost(e, depth + 1);
          sum = add(sum, c);
          if (elem === undefined || isDyn(elem)) elem = n.type;
        }
        return [add(sum, range(LIST_CREATE)), { expr, type: DECL.list(elem ?? DYN) }];
      }
      case 'structExpr': {
        let sum = ZERO;
        let key: CelDeclType | undefined;
        let value: CelDeclType | undefined;
        for (const entry of kind.value.entries) {
          if (entry.keyKind.case === 'mapKey') {
            const [c, n] = this.cost(entry.keyKind.value, depth + 1);
            sum = add(sum, c);
            key ??= n.type;
          }
          if (entry.value) {
            const [c, n] = this.cost(entry.value, depth + 1);
            sum = add(sum, c);
            value ??= n.type;
          }
        }
        if (kind.value.messageName !== '') return [add(sum, range(STRUCT_CREATE)), { expr, type: DECL.struct(kind.value.messageName) }];
        return [add(sum, range(MAP_CREATE)), { expr, type: DECL.map(key ?? DYN, value ?? DYN) }];
      }
      case 'comprehensionExpr':
        return this.comprehension(expr, kind.value, depth);
      default:
        return [ZERO, { expr, type: DYN }];
    }
  }

  private comprehension(expr: Expr, c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'], depth: number): [Range, Node] {
    const [rangeCost, iterRange] = c.iterRange ? this.cost(c.iterRange, depth + 1) : [ZERO, { expr: undefined, type: DYN } as Node];
    const [initCost, init] = c.accuInit ? this.cost(c.accuInit, depth + 1) : [ZERO, { expr: undefined, type: DYN } as Node];
    let sum = add(rangeCost, initCost);
    const rt = iterRange.type;
    const scope = new Map<string, CelDeclType>();
    if (c.iterVar2) {
      scope.set(c.iterVar, rt.kind === 'list' ? INT : rt.kind === 'map' ? (rt.key ?? DYN) : DYN);
      scope.set(c.iterVar2, rt.kind === 'list' || rt.kind === 'map' ? (rt.elem ?? DYN) : DYN);
    } else {
      scope.set(c.iterVar, rt.kind === 'list' ? (rt.elem ?? DYN) : rt.kind === 'map' ? (rt.key ?? DYN) : DYN);
    }
    scope.set(c.accuVar, init.type);
    this.scopes.push(scope);
    const stack = this.iterRanges.get(c.iterVar) ?? [];
    stack.push(iterRange);
    this.iterRanges.set(c.iterVar, stack);
    const [loopCost] = c.loopCondition ? this.cost(c.loopCondition, depth + 1) : [ZERO];
    const [stepCost, step] = c.loopStep ? this.cost(c.loopStep, depth + 1) : [ZERO, undefined];
    stack.pop();
    // The accumulator of map() and filter() starts as [] and takes its items' type from the step.
    if (step && init.type.kind === 'list' && isDyn(init.type.elem ?? DYN) && step.type.kind === 'list') scope.set(c.accuVar, step.type);
    const [resultCost, result] = c.result ? this.cost(c.result, depth + 1) : [ZERO, { expr: undefined, type: DYN } as Node];
    this.scopes.pop();
    sum = add(sum, resultCost);
    const count = this.sizeEstimate(iterRange);
    sum = add(sum, mul(count, add(stepCost, loopCost)));
    return [sum, { expr, type: result.type, computed: count }];
  }

  private call(expr: Expr, call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'], depth: number): [Range, Node] {
    const argCosts: Range[] = [];
    const args: Node[] = [];
    for (const a of call.args) {
      const [c, n] = this.cost(a, depth + 1);
      argCosts.push(c);
      args.push(n);
    }
    let sum = ZERO;
    let target: Node | undefined;
    if (call.target) {
      const [c, n] = this.cost(call.target, depth + 1);
      sum = add(sum, c);
      target = n;
    }
    const name = call.function;
    const operandTypes = target ? [target.type, ...args.map((a) => a.type)] : args.map((a) => a.type);
    const type = callType(name, operandTypes, args);
    let fnCost: Range | undefined;
    let resultSize: Range | undefined;
    for (const overload of overloadsOf(name, target, args)) {
      const estimate = this.functionCost(name, overload, target, args, argCosts);
      fnCost = fnCost === undefined ? estimate.cost : union(fnCost, estimate.cost);
      if (estimate.resultSize) resultSize = resultSize === undefined ? estimate.resultSize : union(resultSize, estimate.resultSize);
    }
    let path: string[] | undefined;
    if (name === '_[_]' && args.length > 0) {
      const k = args[0].type.kind;
      if (k === 'list') path = [...(args[0].path ?? []), '@items'];
      else if (k === 'map') path = [...(args[0].path ?? []), '@values'];
    }
    return [add(sum, fnCost ?? ZERO), { expr, type, path, computed: resultSize }];
  }

  private functionCost(name: string, overload: string, target: Node | undefined, args: readonly Node[], argCosts: readonly Range[]): CallEstimate {
    const argSum = argCosts.reduce(add, ZERO);
    const setsFactor = overload === 'sets.equivalent' ? 2 : overload === 'sets.contains' || overload === 'sets.intersects' ? 1 : undefined;
    if (setsFactor !== undefined && args.length === 2) {
      const cost = add(byFactor(mul(this.librarySize(args[0]), this.librarySize(args[1])), setsFactor), ONE);
      return { cost: add(cost, argSum) };
    }
    const library = this.libraryCost(name, overload, target, args);
    if (library) return { cost: add(library.cost, argSum), resultSize: library.resultSize };
    const size = (n: Node) => this.sizeEstimate(n);
    switch (overload) {
      case 'format':
        if (target) return { cost: add(byFactor(size(target), STRING_TRAVERSAL), argSum) };
        break;
      case 'string_to_bytes': {
        const sz = size(args[0]);
        return { cost: add(byFactor(sz, STRING_TRAVERSAL), argSum), resultSize: range(sz.min, mul1(sz.max, 4n)) };
      }
      case 'bytes_to_string': {
        const sz = size(args[0]);
        return { cost: add(byFactor(sz, STRING_TRAVERSAL), argSum), resultSize: range(sz.min / 4n, sz.max) };
      }
      case 'strings.quote': {
        const sz = size(args[0]);
        return { cost: add(byFactor(sz, STRING_TRAVERSAL), argSum), resultSize: range(add1(sz.min, 2n), add1(mul1(sz.max, 2n), 2n)) };
      }
      case 'startsWith':
      case 'endsWith':
        if (args.length === 1) return { cost: add(byFactor(size(args[0]), STRING_TRAVERSAL), argSum) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: add(byFactor(size(args[1]), 1), argSum) };
        break;
      case 'matches': {
        const [text, pattern] = target ? [target, args[0]] : [args[0], args[1]];
        if (text && pattern) {
          const strCost = byFactor(add(size(text), ONE), STRING_TRAVERSAL);
          const regexCost = byFactor(size(pattern), REGEX_LENGTH);
          return { cost: add(mul(strCost, regexCost), argSum) };
        }
        break;
      }
      case 'contains':
        if (target && args.length === 1) {
          return { cost: add(mul(byFactor(size(target), STRING_TRAVERSAL), byFactor(size(args[0]), STRING_TRAVERSAL)), argSum) };
        }
        break;
      case '_||_':
      case '_&&_': {
        const [lhs = ZERO, rhs = ZERO] = argCosts;
        return { cost: range(lhs.min, add(lhs, rhs).max) };
      }
      case '_?_:_': {
        const resultSize = union(size(args[1]), size(args[2]));
        return { cost: add(argCosts[0], union(argCosts[1], argCosts[2])), resultSize };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = add(size(args[0]), size(args[1]));
          if (overload === 'add_list') return { cost: add(ONE, argSum), resultSize };
          return { cost: add(byFactor(resultSize, STRING_TRAVERSAL), argSum), resultSize };
        }
        break;
      case 'compare_string':
      case '_==_':
      case '_!=_': {
        const lhs = size(args[0]);
        const rhs = size(args[1]);
        const smallestMax = lhs.max < rhs.max ? lhs.max : rhs.max;
        return { cost: add(byFactor(range(smallestMax > 0n ? 1n : 0n, smallestMax), STRING_TRAVERSAL), argSum) };
      }
      default:
        break;
    }
    return { cost: add(ONE, argSum) };
  }

  /** Kubernetes' CostEstimator.EstimateCallCost (library/cost.go), keyed by function name. */
  private libraryCost(name: string, overload: string, target: Node | undefined, args: readonly Node[]): CallEstimate | undefined {
    const size = (n: Node) => this.librarySize(n);
    const traversal = (n: Node) => byFactor(size(n), STRING_TRAVERSAL);
    switch (name) {
      case 'check':
        return { cost: range(350_000n) };
      case 'serviceAccount':
      case 'path':
      case 'group':
      case 'resource':
      case 'subresource':
      case 'namespace':
      case 'name':
      case 'allowed':
      case 'reason':
      case 'error':
      case 'errored':
        return { cost: ONE };
      case 'fieldSelector':
      case 'labelSelector':
        if (args.length === 1) {
          const length = size(args[0]);
          const parse = byFactor(length, STRING_TRAVERSAL);
          const requirements = byFactor(byFactor(length, 0.5), 50);
          return { cost: add(add(range(LIST_CREATE), parse), requirements) };
        }
        return undefined;
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf': {
        if (!target) return undefined;
        const element = this.listElement(target);
        if (element) {
          let elCost = ONE;
          if (element.type.kind === 'string' || element.type.kind === 'bytes') elCost = add(elCost, byFactor(size(element), STRING_TRAVERSAL));
          return { cost: mul(size(target), elCost) };
        }
        return { cost: traversal(target) };
      }
      case 'url':
      case 'jsonpatch.escapeKey':
        if (args.length === 1) return { cost: traversal(args[0]), resultSize: size(args[0]) };
        return undefined;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (!target) return undefined;
        return { cost: traversal(target), resultSize: size(target) };
      case 'replace':
        if (target && args.length >= 2) return this.replaceCost(size(target), size(args[0]), size(args[1]));
        return undefined;
      case 'split': {
        if (!target) return undefined;
        const sz = size(target);
        let max = sz.max;
        const limit = args[1]?.expr?.exprKind;
        if (limit?.case === 'constExpr' && limit.value.constantKind.case === 'int64Value') max = BigInt.asUintN(64, limit.value.constantKind.value);
        return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: range(0n, max) };
      }
      case 'join': {
        if (!target) return undefined;
        let sz = ZERO;
        const listSize = size(target);
        const element = this.listElement(target);
        if (element) sz = mul(listSize, size(element));
        if (args.length > 0) {
          const separators = range(listSize.min > 0n ? listSize.min - 1n : 0n, listSize.max > 0n ? listSize.max - 1n : 0n);
          sz = add(sz, mul(size(args[0]), separators));
        }
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case 'find':
      case 'findAll':
        if (target && args.length >= 1) {
          const sz = size(target);
          const strCost = byFactor(add(sz, ONE), STRING_TRAVERSAL);
          const regexCost = byFactor(size(args[0]), REGEX_LENGTH);
          return { cost: mul(strCost, regexCost), resultSize: range(0n, sz.max) };
        }
        return undefined;
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
      case 'quantity':
      case 'isQuantity':
        if (args.length >= 1) return { cost: traversal(args[0]) };
        return undefined;
      case 'ip':
        if (overload === 'cidr_ip') return { cost: ONE };
        if (args.length >= 1) return { cost: traversal(args[0]) };
        return undefined;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
        return { cost: ONE };
      case 'containsIP':
      case 'containsCIDR': {
        if (!target || args.length < 1) return undefined;
        const sz = range(4n, 16n);
        let cost = byFactor(add(sz, sz), STRING_TRAVERSAL);
        if (name === 'containsCIDR') cost = add(add(cost, byFactor(sz, STRING_TRAVERSAL)), ONE);
        if (overload === 'cidr_contains_ip_string' || overload === 'cidr_contains_cidr_string') cost = add(cost, traversal(args[0]));
        return { cost };
      }
      case 'validate':
        if (args.length >= 1) return { cost: byFactor(byFactor(size(args[0]), STRING_TRAVERSAL), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH) };
        return undefined;
      case 'format.named':
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
      case 'getScheme':
      case 'getHostname':
      case 'getHost':
      case 'getPort':
      case 'getEscapedPath':
      case 'getQuery':
        return { cost: ONE };
      case '_==_': {
        if (args.length !== 2) return undefined;
        const [lhs, rhs] = args;
        if (lhs.type.kind !== rhs.type.kind || lhs.type.name !== rhs.type.name) return undefined;
        if (lhs.type.kind === 'opaque' && (lhs.type.name === 'net.IP' || lhs.type.name === 'net.IPPrefix')) return { cost: ONE };
        if (lhs.type.kind === 'struct' && lhs.type.name === 'kubernetes.Quantity') return { cost: ONE };
        if (lhs.type.kind === 'struct' && lhs.type.name === 'kubernetes.NamedFormat')
          return { cost: byFactor(range(1n, BigInt(MAX_FORMAT_SIZE)), STRING_TRAVERSAL) };
        if (lhs.type.kind === 'struct' && lhs.type.name === 'kubernetes.URL') {
          // As Kubernetes writes it: both sides read from the right operand.
          const r = this.astNode(rhs).computed ?? literalSize(rhs.expr);
          const sz = r !== undefined ? r : ONE;
          return { cost: byFactor(range(1n, sz.max), STRING_TRAVERSAL) };
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }

  private replaceCost(sz: Range, toReplace: Range, replaceWith: Range): CallEstimate {
    const count = { min: 0n, max: 0n };
    const retained = { min: 0n, max: 0n };
    if (toReplace.min === 0n) {
      count.max = sz.max < U64_MAX ? sz.max + 1n : sz.max;
      retained.max = sz.max;
    } else if (replaceWith.max <= toReplace.min) {
      retained.max = sz.max;
    } else {
      count.max = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
    }
    if (toReplace.max === 0n) {
      count.min = sz.min < U64_MAX ? sz.min + 1n : sz.min;
      retained.min = sz.min;
    } else if (toReplace.max <= replaceWith.min) {
      retained.min = sz.min;
    } else {
      count.min = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
    }
    const resultSize = add(mul(count, replaceWith), retained);
    return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize };
  }

  /** The items of a list (the keys of a map), with a path where the list has one. */
  private listElement(list: Node): Node | undefined {
    const t = list.type;
    const param = t.kind === 'list' ? t.elem : t.kind === 'map' ? t.key : t.kind === 'optional' ? t.elem : undefined;
    if (param === undefined) return undefined;
    const node = this.astNode(list);
    return { expr: undefined, type: param, path: node.path ? [...node.path, '@items'] : undefined };
  }
}

/** The estimated cost of one evaluation of `program`, its variables typed as given. */
export function estimateCostRange(program: Pick<CelProgram, 'ast'>, variables: Readonly<Record<string, CelDeclType>>, sizes: SizeEstimator): Range {
  return new Coster(variables, sizes).cost(program.ast)[0];
}

/** The most an evaluation of `program` can cost (the estimate's maximum), as cel-go's EstimateCost gives it. */
export function estimateCost(program: Pick<CelProgram, 'ast'>, variables: Readonly<Record<string, CelDeclType>>, sizes: SizeEstimator): bigint {
  return estimateCostRange(program, variables, sizes).max;
}

/** Go's %f: six decimals. */
function goFloat(value: number): string {
  return value.toFixed(6);
}

/** Kubernetes' wording of a cost over its limit (getCostErrorMessage): `... exceeds budget by factor of 1.5x (try ...)`. */
export function costExceededMessage(what: string, cost: bigint, limit: number): string {
  const factor = Number(cost) / limit;
  const text = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${goFloat(factor)}x` : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
