import { celError, celMap, isCelError, isCelList, isCelMap, objectType, plan, type CelEnv, type CelResult } from '@bufbuild/cel';
import { codePoints } from './cel-cost';
import { callExtension, NOT_OURS, optionalAccess, optionalListElements } from './cel-extension-functions';
import { CelFormat } from './cel-format-library';
import { CelOpaqueValue, CelOptional, noSuchOverload } from './cel-values';

/**
 * Evaluation with cel-go's runtime cost tracking (interpreter/runtimecost.go and Kubernetes'
 * CostEstimator.CallCost): the cost is that of what is actually evaluated. `&&`, `||` and `?:` run
 * only the operands CEL runs, a comprehension stops where its loop condition does, identifiers and
 * field selections cost 1, list and map literals 10 and 30, and each call what its arguments' actual
 * sizes make it. The walk is ours (control flow and the cost); each node's value is computed by the
 * CEL library from its children's values, so values are exactly CEL's.
 */

/** The error of an evaluation over its limit, worded as cel-go's. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

export class CelCostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED);
  }
}

type Expr = ReturnType<typeof import('@bufbuild/cel').parse>['expr'];
type Run = (bindings?: Record<string, unknown>) => CelResult;

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const MAX_DEPTH = 250;

function ident(name: string): Expr {
  return { id: 0n, exprKind: { case: 'identExpr', value: { name } } } as unknown as Expr;
}

const isConst = (e: Expr | undefined) => e?.exprKind.case === 'constExpr';

/**
 * A list or map literal of constants only: cel-go's planner (OptOptimize, which Kubernetes sets)
 * makes it a constant, so it costs nothing to evaluate.
 */
function isConstLiteral(e: Expr | undefined, depth = 0): boolean {
  if (e === undefined || depth > 50) return false;
  const kind = e.exprKind;
  if (kind.case === 'constExpr') return true;
  if (kind.case === 'listExpr') return kind.value.optionalIndices.length === 0 && kind.value.elements.every((x) => isConstLiteral(x, depth + 1));
  if (kind.case === 'structExpr') {
    return (
      kind.value.messageName === '' &&
      kind.value.entries.every(
        (x) => !x.optionalEntry && x.keyKind.case === 'mapKey' && isConstLiteral(x.keyKind.value, depth + 1) && isConstLiteral(x.value, depth + 1),
      )
    );
  }
  return false;
}

/** Names of types, which cel-go resolves when it plans the expression: reading one costs nothing. */
const TYPE_NAMES = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'dyn']);
/** Type names of the types the engine does not know, which `type(x)` of our values equals. */
const OPAQUE_TYPE_NAMES = new Set(['optional_type']);

/**
 * A variable, or fields and constant indexes of one: cel-go plans it as an attribute. As a branch of
 * `?:` it is resolved inside the conditional, which observes no cost for it.
 */
function isAttribute(e: Expr | undefined, depth = 0): boolean {
  if (e === undefined || depth > 100) return false;
  const kind = e.exprKind;
  if (kind.case === 'identExpr') return true;
  if (kind.case === 'selectExpr') return !kind.value.testOnly && isAttribute(kind.value.operand, depth + 1);
  if (kind.case === 'callExpr' && kind.value.function === '_[_]' && !kind.value.target)
    return isConst(kind.value.args[1]) && isAttribute(kind.value.args[0], depth + 1);
  return false;
}

/** `x in [literal of scalars]`: cel-go's set membership test, which costs nothing beyond its operand. */
function isSetMembership(call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value']): boolean {
  const list = call.args[1]?.exprKind;
  return call.function === '@in' && list?.case === 'listExpr' && list.value.optionalIndices.length === 0 && list.value.elements.every((x) => isConst(x));
}

/** Size as CEL's size() gives it: characters, bytes, items, entries; 1 for everything else. */
function actualSize(value: unknown): number {
  if (typeof value === 'string') return codePoints(value);
  if (value instanceof Uint8Array) return value.length;
  if (isCelList(value)) return value.size;
  if (isCelMap(value)) return value.size;
  return 1;
}

/** Kubernetes' traversalCost: what isSorted, sum, min, max, indexOf walk. */
function traversalCost(value: unknown, depth = 0): number {
  if (depth > 100) return 1;
  if (typeof value === 'string') return Math.floor(Buffer.byteLength(value) * STRING_TRAVERSAL);
  if (value instanceof Uint8Array) return Math.floor(value.length * STRING_TRAVERSAL);
  if (isCelList(value)) {
    let cost = 0;
    for (const v of value) cost += traversalCost(v, depth + 1);
    return cost;
  }
  if (isCelMap(value)) {
    let cost = 0;
    for (const [k, v] of value) cost += traversalCost(k, depth + 1) + traversalCost(v, depth + 1);
    return cost;
  }
  return 1;
}

const traverse = (value: unknown, factor = STRING_TRAVERSAL) => Math.ceil(actualSize(value) * factor);

/** The cost of one call, from its operands (target first) and result: Kubernetes' CallCost, then cel-go's defaults. */
function callCost(name: string, expr: Expr, operands: readonly unknown[], result: unknown, member: boolean): number {
  const [a0, a1] = operands;
  switch (name) {
    case 'check':
      return 350_000;
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
      return 1;
    case 'fieldSelector':
    case 'labelSelector':
      if (operands.length >= 2) {
        const length = actualSize(a1);
        return 10 + Math.ceil(length * STRING_TRAVERSAL) + Math.ceil(Math.ceil(length * 0.5) * 50);
      }
      break;
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      return operands.length > 0 ? traversalCost(a0) : 0;
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'jsonpatch.escapeKey':
      if (operands.length >= 1) return traverse(a0);
      break;
    case 'replace':
    case 'split':
      if (operands.length >= 1) return traverse(a0, 2 * STRING_TRAVERSAL);
      break;
    case 'join':
      if (operands.length >= 1) return traverse(result, 2 * STRING_TRAVERSAL);
      break;
    case 'find':
    case 'findAll':
      if (operands.length >= 2) return Math.ceil((1 + actualSize(a0)) * STRING_TRAVERSAL) * Math.ceil(actualSize(a1) * REGEX_LENGTH);
      break;
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
    case 'quantity':
    case 'isQuantity':
      if (operands.length >= 1) return traverse(a0);
      break;
    case 'ip':
      if (member) return 1;
      if (operands.length >= 1) return traverse(a0);
      break;
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
    case 'validate':
      if (a0 instanceof CelFormat && operands.length >= 2) {
        return Math.ceil((1 + actualSize(a1)) * STRING_TRAVERSAL) * Math.ceil(a0.maxRegexSize * REGEX_LENGTH);
      }
      break;
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
      return 1;
    case 'containsIP':
    case 'containsCIDR':
      if (operands.length >= 2) {
        // A CIDR or IP value has no size in Kubernetes; ours are carried as strings, so count them as 1.
        const call = expr.exprKind.case === 'callExpr' ? expr.exprKind.value : undefined;
        const argument = call?.args[0]?.exprKind;
        const parsesString = !(argument?.case === 'callExpr' && (argument.value.function === 'ip' || argument.value.function === 'cidr'));
        let cost = Math.ceil(2 * STRING_TRAVERSAL);
        if (name === 'containsCIDR') cost += Math.ceil(STRING_TRAVERSAL) + 1;
        if (parsesString) cost += traverse(a1);
        return cost;
      }
      break;
    default:
      break;
  }
  switch (name) {
    case 'startsWith':
    case 'endsWith':
    case 'format':
    case 'strings.quote':
      return traverse(a0);
    case 'string':
      return a0 instanceof Uint8Array ? traverse(a0) : 1;
    case 'bytes':
      return typeof a0 === 'string' ? traverse(a0) : 1;
    case '@in':
      return isCelList(a1) ? actualSize(a1) : 1;
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_':
      if (!(typeof a0 === 'string' || a0 instanceof Uint8Array)) return 1;
      return Math.ceil(Math.min(actualSize(a0), actualSize(a1)) * STRING_TRAVERSAL);
    case '_==_':
    case '_!=_':
      return Math.ceil(Math.min(actualSize(a0), actualSize(a1)) * STRING_TRAVERSAL);
    case '_+_':
      if (typeof a0 === 'string' || a0 instanceof Uint8Array) return Math.ceil((actualSize(a0) + actualSize(a1)) * STRING_TRAVERSAL);
      return 1;
    case 'matches':
      return Math.ceil((1 + actualSize(a0)) * STRING_TRAVERSAL) * Math.ceil(actualSize(a1) * REGEX_LENGTH);
    case 'contains':
      if (typeof a0 === 'string') return traverse(a0) * traverse(a1);
      return 1;
    case 'sets.contains':
    case 'sets.intersects':
      return 1 + Math.floor(actualSize(a0) * actualSize(a1));
    case 'sets.equivalent':
      return 1 + Math.floor(actualSize(a0) * actualSize(a1) * 2);
    default:
      return 1;
  }
}

const plans = new WeakMap<object, Run>();

/** `a.b.c` for a select chain rooted at an identifier, else undefined. */
function qualifiedName(e: Expr, depth = 0): string | undefined {
  const kind = e.exprKind;
  if (depth > 20) return undefined;
  if (kind.case === 'identExpr') return kind.value.name;
  if (kind.case === 'selectExpr' && !kind.value.testOnly && kind.value.operand) {
    const base = qualifiedName(kind.value.operand, depth + 1);
    return base === undefined ? undefined : `${base}.${kind.value.field}`;
  }
  return undefined;
}

/** One evaluation of an expression, counting its cost against `limit`. */
class CostedEvaluation {
  cost = 0;
  private readonly scopes: Array<Map<string, unknown>> = [];
  private readonly globals = new Map<string, CelResult>();

  constructor(
    private readonly env: CelEnv,
    private readonly bindings: Record<string, unknown>,
    private readonly limit: number,
  ) {}

  private charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CelCostLimitExceeded();
  }

  /** The value of `synthetic` (a node whose children are the variables `@0`, `@1`, ...), planned once per node. */
  private compute(node: Expr, synthetic: () => Expr, values: Record<string, unknown>): CelResult {
    let run = plans.get(node);
    if (run === undefined) {
      run = plan(this.env, synthetic()) as Run;
      plans.set(node, run);
    }
    return run(values);
  }

  private lookup(name: string): { found: true; value: unknown } | { found: false } {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      if (this.scopes[i].has(name)) return { found: true, value: this.scopes[i].get(name) };
    }
    return { found: false };
  }

  eval(e: Expr, depth = 0): CelResult {
    if (depth > MAX_DEPTH) return celError('expression nests too deeply');
    const kind = e.exprKind;
    switch (kind.case) {
      case 'constExpr':
        return this.compute(e, () => e, {});
      case 'identExpr': {
        const local = this.lookup(kind.value.name);
        if (local.found) {
          this.charge(1);
          return local.value as CelResult;
        }
        if (TYPE_NAMES.has(kind.value.name) && !(kind.value.name in this.bindings)) return this.compute(e, () => e, this.bindings);
        if (OPAQUE_TYPE_NAMES.has(kind.value.name) && !(kind.value.name in this.bindings)) return objectType(kind.value.name);
        this.charge(1);
        // Values of the libraries' own types (`authorizer`, `authorizer.requestResource`) are bound as they are.
        const bound = this.bindings[kind.value.name];
        if (bound instanceof CelOpaqueValue) return bound as unknown as CelResult;
        let value = this.globals.get(kind.value.name);
        if (value === undefined) {
          value = this.compute(e, () => e, this.bindings);
          this.globals.set(kind.value.name, value);
        }
        return value;
      }
      case 'selectExpr': {
        const sel = kind.value;
        // google.protobuf.Duration and its kind: a type name, resolved when planned.
        if (qualifiedName(e) === 'google.protobuf.Duration' || qualifiedName(e) === 'google.protobuf.Timestamp') return this.compute(e, () => e, {});
        if (!sel.operand) return celError('select without an operand');
        const operand = this.eval(sel.operand, depth + 1);
        if (!sel.testOnly) this.charge(1);
        if (isCelError(operand)) return operand;
        // After an optional selection, every later selection is optional too (cel-go's attributes).
        if (operand instanceof CelOptional)
          return sel.testOnly ? celError('no such overload: has(optional_type)') : (optionalAccess(operand, sel.field) as CelResult);
        if (operand instanceof CelOpaqueValue) return celError(sel.testOnly ? `no such overload: has(${operand.typeName})` : `no such key: ${sel.field}`);
        // cel-go's wording for a field the object does not have.
        if (!sel.testOnly && isCelMap(operand) && operand.get(sel.field) === undefined) return celError(`no such key: ${sel.field}`);
        return this.compute(e, () => ({ ...e, exprKind: { case: 'selectExpr', value: { ...sel, operand: ident('@0') } } }), { '@0': operand });
      }
      case 'callExpr':
        return this.call(e, kind.value, depth);
      case 'listExpr': {
        const values: Record<string, unknown> = {};
        const elements = kind.value.elements;
        for (let i = 0; i < elements.length; i++) {
          if (isConst(elements[i])) continue;
          const v = this.eval(elements[i], depth + 1);
          if (isCelError(v)) return v;
          values[`@${i}`] = v;
        }
        if (!isConstLiteral(e)) this.charge(10);
        if (kind.value.optionalIndices.length > 0) {
          const all = elements.map((x, i) => (isConst(x) ? this.eval(x, depth + 1) : values[`@${i}`]));
          return optionalListElements(all, new Set(kind.value.optionalIndices)) as CelResult;
        }
        return this.compute(
          e,
          () => ({ ...e, exprKind: { case: 'listExpr', value: { ...kind.value, elements: elements.map((x, i) => (isConst(x) ? x : ident(`@${i}`))) } } }),
          values,
        );
      }
      case 'structExpr': {
        const values: Record<string, unknown> = {};
        const entries = kind.value.entries;
        for (let i = 0; i < entries.length; i++) {
          const entry = entries[i];
          if (entry.keyKind.case === 'mapKey' && !isConst(entry.keyKind.value)) {
            const k = this.eval(entry.keyKind.value, depth + 1);
            if (isCelError(k)) return k;
            values[`@k${i}`] = k;
          }
          if (entry.value && !isConst(entry.value)) {
            const v = this.eval(entry.value, depth + 1);
            if (isCelError(v)) return v;
            values[`@v${i}`] = v;
          }
        }
        if (!isConstLiteral(e)) this.charge(kind.value.messageName === '' ? 30 : 40);
        if (kind.value.messageName === '' && entries.some((entry) => entry.optionalEntry)) return this.optionalMap(entries, values, depth);
        return this.compute(
          e,
          () => ({
            ...e,
            exprKind: {
              case: 'structExpr',
              value: {
                ...kind.value,
                entries: entries.map((entry, i) => ({
                  ...entry,
                  keyKind: entry.keyKind.case === 'mapKey' && !isConst(entry.keyKind.value) ? { case: 'mapKey', value: ident(`@k${i}`) } : entry.keyKind,
                  value: entry.value && !isConst(entry.value) ? ident(`@v${i}`) : entry.value,
                })),
              },
            },
          }),
          values,
        );
      }
      case 'comprehensionExpr':
        return this.comprehension(kind.value, depth);
      default:
        return celError('unsupported expression');
    }
  }

  /** A map literal with optional entries (`{?k: v}`): an entry whose value is optional.none() is left out. */
  private optionalMap(
    entries: Extract<Expr['exprKind'], { case: 'structExpr' }>['value']['entries'],
    values: Record<string, unknown>,
    depth: number,
  ): CelResult {
    const out = new Map<unknown, unknown>();
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (entry.keyKind.case !== 'mapKey' || !entry.value) return celError('invalid map entry');
      let key = isConst(entry.keyKind.value) ? this.eval(entry.keyKind.value, depth + 1) : values[`@k${i}`];
      let value = isConst(entry.value) ? this.eval(entry.value, depth + 1) : values[`@v${i}`];
      if (typeof key === 'number') {
        if (!Number.isInteger(key)) return celError('unsupported key type');
        key = BigInt(key);
      }
      if (entry.optionalEntry) {
        if (!(value instanceof CelOptional)) return celError(`cannot initialize optional entry '${String(key)}' from non-optional value ${String(value)}`);
        if (!value.hasValue()) continue;
        value = value.value();
      }
      if (out.has(key)) return celError(`Failed with repeated key: ${String(key)}`);
      out.set(key, value);
    }
    return celMap(out as Map<never, never>);
  }

  /** The value of `e` with no cost counted: an attribute resolved inside a conditional. */
  private free(e: Expr, depth: number): CelResult {
    const cost = this.cost;
    try {
      return this.eval(e, depth);
    } finally {
      this.cost = cost;
    }
  }

  /**
   * `a.or(b)` and `a.orValue(b)`: cel-go evaluates `b` only when `a` is optional.none(), and counts no
   * cost for the call itself, only for what it evaluates.
   */
  private optionalOr(name: string, target: Expr, alternative: Expr, depth: number): CelResult {
    const lhs = this.eval(target, depth + 1);
    if (isCelError(lhs)) return lhs;
    if (!(lhs instanceof CelOptional)) return noSuchOverload(name, [lhs]);
    if (lhs.hasValue()) return (name === 'or' ? lhs : lhs.value()) as CelResult;
    return this.eval(alternative, depth + 1);
  }

  private comprehension(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'], depth: number): CelResult {
    if (!c.iterRange || !c.accuInit || !c.loopStep || !c.result) return celError('incomplete comprehension');
    const iterRange = this.eval(c.iterRange, depth + 1);
    if (isCelError(iterRange)) return iterRange;
    let accu: unknown = this.eval(c.accuInit, depth + 1);
    let pairs: Array<[unknown, unknown]>;
    if (isCelList(iterRange)) pairs = Array.from(iterRange, (v, i) => (c.iterVar2 ? [BigInt(i), v] : [v, undefined]));
    else if (isCelMap(iterRange)) pairs = Array.from(iterRange, ([k, v]) => [k, v]);
    else return celError(`cannot iterate over ${typeof iterRange}`);
    const scope = new Map<string, unknown>();
    this.scopes.push(scope);
    try {
      for (const [first, second] of pairs) {
        scope.set(c.iterVar, first);
        if (c.iterVar2) scope.set(c.iterVar2, second);
        scope.set(c.accuVar, accu);
        if (c.loopCondition && this.eval(c.loopCondition, depth + 1) !== true) break;
        accu = this.eval(c.loopStep, depth + 1);
      }
      scope.delete(c.iterVar);
      if (c.iterVar2) scope.delete(c.iterVar2);
      scope.set(c.accuVar, accu);
      return this.eval(c.result, depth + 1);
    } finally {
      this.scopes.pop();
    }
  }

  private call(e: Expr, call: Extract<Expr['exprKind'], { case: 'callExpr' }>['value'], depth: number): CelResult {
    const name = call.function;
    if ((name === '_&&_' || name === '_||_') && call.args.length === 2) {
      const stop = name === '_||_';
      let error: CelResult | undefined;
      for (const term of call.args) {
        const v = this.eval(term, depth + 1);
        if (v === stop) return stop;
        if (typeof v !== 'boolean' && error === undefined) error = isCelError(v) ? v : celError(`no such overload: ${name}`);
      }
      return error ?? !stop;
    }
    if (name === '_?_:_' && call.args.length === 3) {
      const condition = this.eval(call.args[0], depth + 1);
      const branch = condition === true ? call.args[1] : condition === false ? call.args[2] : undefined;
      if (branch !== undefined) return isAttribute(branch) ? this.free(branch, depth + 1) : this.eval(branch, depth + 1);
      return isCelError(condition) ? condition : celError('no such overload: _?_:_');
    }
    if (name === '@not_strictly_false' && call.args.length === 1) {
      const v = this.eval(call.args[0], depth + 1);
      this.charge(1);
      return typeof v === 'boolean' ? v : true;
    }
    if ((name === '_?._' || name === '_[?_]') && call.args.length === 2 && !call.target) {
      const operand = this.eval(call.args[0], depth + 1);
      const key = this.eval(call.args[1], depth + 1);
      if (isCelError(operand)) return operand;
      if (isCelError(key)) return key;
      // cel-go counts an optional qualifier only where it finds a value.
      const found = optionalAccess(operand, key) as CelResult;
      if (!(found instanceof CelOptional) || found.hasValue()) this.charge(1);
      return found;
    }
    if ((name === 'or' || name === 'orValue') && call.target && call.args.length === 1) return this.optionalOr(name, call.target, call.args[0], depth);
    const operands: unknown[] = [];
    const values: Record<string, unknown> = {};
    const parts = call.target ? [call.target, ...call.args] : call.args;
    let error: CelResult | undefined;
    for (let i = 0; i < parts.length; i++) {
      const v = this.eval(parts[i], depth + 1);
      operands.push(v);
      values[`@${i}`] = v;
      if (isCelError(v) && error === undefined) error = v;
    }
    if (error !== undefined) {
      this.charge(1);
      return error;
    }
    let extension: unknown = NOT_OURS;
    if (name === '_[_]' && operands[0] instanceof CelOptional) extension = optionalAccess(operands[0], operands[1]);
    else extension = callExtension(name, call.target ? operands[0] : undefined, call.target ? operands.slice(1) : operands);
    if (extension !== NOT_OURS) {
      const value = extension as CelResult;
      if (!isSetMembership(call)) this.charge(callCost(name, e, operands, value, call.target !== undefined));
      return value;
    }
    const result = this.compute(
      e,
      () => {
        const replaced = parts.map((p, i) => (isConst(p) ? p : ident(`@${i}`)));
        const value = call.target ? { ...call, target: replaced[0], args: replaced.slice(1) } : { ...call, args: replaced };
        return { ...e, exprKind: { case: 'callExpr', value } };
      },
      values,
    );
    if (!isSetMembership(call)) this.charge(callCost(name, e, operands, result, call.target !== undefined));
    return result;
  }
}

/** The value of `ast` and what evaluating it cost; throws CelCostLimitExceeded as soon as the cost passes `limit`. */
export function evaluateWithCost(env: CelEnv, ast: Expr, bindings: Record<string, unknown>, limit: number): { value: CelResult; cost: number } {
  const run = new CostedEvaluation(env, bindings, limit);
  const value = run.eval(ast);
  return { value, cost: run.cost };
}
