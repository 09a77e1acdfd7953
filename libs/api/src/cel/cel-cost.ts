import type { CelProgram } from './cel-environment';

/**
 * Cost of CEL expressions, in Kubernetes' units (k8s.io/apiserver/pkg/apis/cel/config.go): about one
 * unit per node evaluated, a tenth of a unit per byte or item a function walks. An expression's cost
 * is estimated from the sizes its values can have: a schema's maxLength/maxItems/maxProperties when
 * the CRD is written, the sizes of the actual values when a rule runs.
 */

/** Kubernetes' per-rule budget for an estimated cost (StaticEstimatedCostLimit). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Kubernetes' budget for all rules of one CRD version, each multiplied by how often it can run. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Kubernetes' runtime limit of one evaluation (PerCallLimit). */
export const PER_CALL_COST_LIMIT = 1_000_000;
/** Kubernetes' runtime budget of all rules of one request (RuntimeCELCostBudget). */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** The largest request body, from which the size of an unbounded value is derived. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** What a value can be, and how large: the estimator's view of a schema node or of an actual value. */
export interface CelShape {
  type: 'object' | 'map' | 'list' | 'string' | 'integer' | 'number' | 'boolean' | 'dyn';
  /** Bytes of a string, items of a list, entries of a map. */
  maxSize: number;
  /** An object's fields. */
  properties?: Record<string, CelShape>;
  /** A list's items, or a map's values. */
  items?: CelShape;
}

const DYN: CelShape = { type: 'dyn', maxSize: MAX_REQUEST_SIZE_BYTES };
const SCALAR = (type: CelShape['type']): CelShape => ({ type, maxSize: 1 });

interface Estimate {
  cost: number;
  shape: CelShape;
}

function stringCost(size: number): number {
  return Math.ceil(size * 0.1);
}

/** Shapes of the variables in scope, innermost last. */
type Scope = ReadonlyMap<string, CelShape>;

function sizeOf(shape: CelShape): number {
  return shape.type === 'integer' || shape.type === 'number' || shape.type === 'boolean' ? 1 : shape.maxSize;
}

const LOGICAL = new Set(['_&&_', '_||_', '!_', '_?_:_', '@not_strictly_false', 'has']);
const COMPARISON = new Set(['_==_', '_!=_', '_<_', '_<=_', '_>_', '_>=_']);
const STRING_WALKS = new Set([
  'contains',
  'startsWith',
  'endsWith',
  'lowerAscii',
  'upperAscii',
  'trim',
  'replace',
  'split',
  'substring',
  'indexOf',
  'lastIndexOf',
  'charAt',
  'join',
  'reverse',
  'quote',
  'format',
  'string',
  'bytes',
  'int',
  'double',
]);
const LIST_WALKS = new Set(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'join']);
const REGEX = new Set(['matches', 'find', 'findAll']);

class Estimator {
  /** The accumulator of the comprehension being estimated: appending to it is amortised, as in cel-go. */
  private readonly accumulators = new Set<string>();

  constructor(private readonly depthLimit = 200) {}

  estimate(ast: CelProgram['ast'], scope: Scope, depth = 0): Estimate {
    if (depth > this.depthLimit) return { cost: STATIC_ESTIMATED_COST_LIMIT, shape: DYN };
    const kind = ast.exprKind;
    switch (kind.case) {
      case 'constExpr': {
        const c = kind.value.constantKind;
        if (c.case === 'stringValue') return { cost: 0, shape: { type: 'string', maxSize: c.value.length } };
        if (c.case === 'bytesValue') return { cost: 0, shape: { type: 'string', maxSize: c.value.length } };
        return { cost: 0, shape: SCALAR(c.case === 'boolValue' ? 'boolean' : c.case === 'doubleValue' ? 'number' : 'integer') };
      }
      case 'identExpr':
        return { cost: 1, shape: scope.get(kind.value.name) ?? DYN };
      case 'selectExpr': {
        const operand = kind.value.operand ? this.estimate(kind.value.operand, scope, depth + 1) : { cost: 0, shape: DYN };
        if (kind.value.testOnly) return { cost: operand.cost + 1, shape: SCALAR('boolean') };
        return { cost: operand.cost + 1, shape: fieldShape(operand.shape, kind.value.field) };
      }
      case 'listExpr': {
        let cost = 10;
        let item: CelShape | undefined;
        for (const e of kind.value.elements) {
          const el = this.estimate(e, scope, depth + 1);
          cost += el.cost;
          item = item === undefined ? el.shape : widen(item, el.shape);
        }
        return { cost, shape: { type: 'list', maxSize: kind.value.elements.length, items: item ?? DYN } };
      }
      case 'structExpr': {
        let cost = 30;
        for (const e of kind.value.entries) {
          if (e.keyKind.case === 'mapKey') cost += this.estimate(e.keyKind.value, scope, depth + 1).cost;
          if (e.value) cost += this.estimate(e.value, scope, depth + 1).cost;
        }
        return { cost, shape: { type: 'map', maxSize: kind.value.entries.length, items: DYN } };
      }
      case 'comprehensionExpr': {
        const c = kind.value;
        const range = c.iterRange ? this.estimate(c.iterRange, scope, depth + 1) : { cost: 0, shape: DYN };
        const init = c.accuInit ? this.estimate(c.accuInit, scope, depth + 1) : { cost: 0, shape: DYN };
        const n = sizeOf(range.shape);
        const element =
          range.shape.type === 'list' ? (range.shape.items ?? DYN) : range.shape.type === 'map' || range.shape.type === 'object' ? keyShape(range.shape) : DYN;
        const inner = new Map(scope);
        inner.set(c.iterVar, element);
        if (c.iterVar2) inner.set(c.iterVar2, range.shape.items ?? DYN);
        // The accumulator grows to at most one entry per item (map and filter macros).
        const accumulated: CelShape = init.shape.type === 'list' ? { type: 'list', maxSize: n, items: DYN } : init.shape;
        inner.set(c.accuVar, accumulated);
        this.accumulators.add(c.accuVar);
        const condition = c.loopCondition ? this.estimate(c.loopCondition, inner, depth + 1) : { cost: 0, shape: DYN };
        const step = c.loopStep ? this.estimate(c.loopStep, inner, depth + 1) : { cost: 0, shape: DYN };
        const result = c.result ? this.estimate(c.result, inner, depth + 1) : { cost: 0, shape: DYN };
        this.accumulators.delete(c.accuVar);
        const shape = step.shape.type === 'list' ? { type: 'list' as const, maxSize: n, items: step.shape.items ?? DYN } : result.shape;
        return { cost: range.cost + init.cost + n * (condition.cost + step.cost) + result.cost, shape };
      }
      case 'callExpr':
        return this.call(kind.value, scope, depth);
      default:
        return { cost: 1, shape: DYN };
    }
  }

  private call(call: { function: string; target?: CelProgram['ast']; args: CelProgram['ast'][] }, scope: Scope, depth: number): Estimate {
    const target = call.target ? this.estimate(call.target, scope, depth + 1) : undefined;
    const args = call.args.map((a) => this.estimate(a, scope, depth + 1));
    const operands = target ? [target, ...args] : args;
    const base = operands.reduce((sum, o) => sum + o.cost, 0);
    const name = call.function;
    const first = operands[0]?.shape ?? DYN;
    if (LOGICAL.has(name)) {
      const shape = name === '_?_:_' && args.length === 3 ? widen(args[1].shape, args[2].shape) : SCALAR('boolean');
      return { cost: base, shape };
    }
    if (name === 'size') return { cost: base + 1, shape: SCALAR('integer') };
    if (COMPARISON.has(name)) {
      const size = Math.min(...operands.map((o) => sizeOf(o.shape)));
      const walks = operands.some((o) => o.shape.type !== 'integer' && o.shape.type !== 'number' && o.shape.type !== 'boolean');
      return { cost: base + 1 + (walks ? stringCost(size) : 0), shape: SCALAR('boolean') };
    }
    if (name === '_+_') {
      const [a, b] = operands;
      const concatenates = a && b && (a.shape.type === 'string' || a.shape.type === 'list' || a.shape.type === 'dyn');
      if (!concatenates) return { cost: base + 1, shape: a?.shape ?? DYN };
      const size = sizeOf(a.shape) + sizeOf(b.shape);
      const accumulating = call.args[0]?.exprKind.case === 'identExpr' && this.accumulators.has(call.args[0].exprKind.value.name);
      const shape: CelShape = { ...a.shape, maxSize: Math.min(size, MAX_REQUEST_SIZE_BYTES), items: a.shape.items ?? b.shape.items };
      return { cost: base + 1 + (accumulating ? 0 : stringCost(size)), shape };
    }
    if (name === '@in') {
      const container = operands[1]?.shape ?? DYN;
      return {
        cost: base + 1 + (container.type === 'list' ? sizeOf(container) * Math.max(1, stringCost(sizeOf(container.items ?? DYN))) : 0),
        shape: SCALAR('boolean'),
      };
    }
    if (name === '_[_]') return { cost: base + 1, shape: container(first) };
    if (REGEX.has(name)) {
      const text = sizeOf(first);
      const pattern = operands[1] ? sizeOf(operands[1].shape) : 1;
      const cost = Math.ceil(1 + 0.1 * text) * Math.ceil(1 + 0.25 * pattern);
      return { cost: base + cost, shape: name === 'findAll' ? { type: 'list', maxSize: text, items: first } : name === 'matches' ? SCALAR('boolean') : first };
    }
    if (first.type === 'list' && LIST_WALKS.has(name)) {
      const per = Math.max(1, stringCost(sizeOf(first.items ?? DYN)));
      return { cost: base + 1 + sizeOf(first) * per, shape: name === 'join' ? { type: 'string', maxSize: MAX_REQUEST_SIZE_BYTES } : (first.items ?? DYN) };
    }
    if (STRING_WALKS.has(name)) {
      const size = operands.reduce((sum, o) => sum + sizeOf(o.shape), 0);
      const shape: CelShape =
        name === 'split'
          ? { type: 'list', maxSize: sizeOf(first), items: first }
          : name === 'contains' || name === 'startsWith' || name === 'endsWith'
            ? SCALAR('boolean')
            : first;
      return { cost: base + 1 + stringCost(size), shape };
    }
    return { cost: base + 1, shape: DYN };
  }
}

function container(shape: CelShape): CelShape {
  return shape.items ?? DYN;
}

function keyShape(shape: CelShape): CelShape {
  return {
    type: 'string',
    maxSize: shape.type === 'object' ? Math.max(1, ...Object.keys(shape.properties ?? {}).map((k) => k.length)) : MAX_REQUEST_SIZE_BYTES,
  };
}

function fieldShape(shape: CelShape, field: string): CelShape {
  if (shape.type === 'object') return shape.properties?.[field] ?? DYN;
  if (shape.type === 'map') return shape.items ?? DYN;
  return DYN;
}

function widen(a: CelShape, b: CelShape): CelShape {
  if (a.type !== b.type) return DYN;
  return { ...a, maxSize: Math.max(a.maxSize, b.maxSize) };
}

/** The estimated cost of one evaluation of `program` with variables of the given shapes. */
export function estimateCost(program: Pick<CelProgram, 'ast'>, variables: Readonly<Record<string, CelShape>>): number {
  return new Estimator().estimate(program.ast, new Map(Object.entries(variables))).cost;
}

/** Kubernetes' wording of a cost over its limit: `... exceeds budget by factor of 1.5x (try ...)`. */
export function costExceededMessage(what: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const text = factor > 100 ? 'more than 100x' : `${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${text} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** The smallest JSON a value of this schema type can take, for the item count an unbounded list can reach. */
function minSerializedSize(type: CelShape['type']): number {
  switch (type) {
    case 'string':
    case 'object':
    case 'map':
    case 'list':
      return 2;
    case 'boolean':
      return 4;
    default:
      return 1;
  }
}

/** The size a value can reach when its schema states no bound: whatever fits in one request. */
export function unboundedSize(itemType: CelShape['type']): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(itemType) + 1));
}

/** The shape of an actual value: its real sizes, items widened to the largest. */
export function shapeOfValue(value: unknown, depth = 0): CelShape {
  if (depth > 100) return DYN;
  if (typeof value === 'string') return { type: 'string', maxSize: value.length };
  if (typeof value === 'number' || typeof value === 'bigint') return SCALAR(typeof value === 'bigint' || Number.isInteger(value) ? 'integer' : 'number');
  if (typeof value === 'boolean') return SCALAR('boolean');
  if (Array.isArray(value)) {
    let items: CelShape | undefined;
    for (const v of value) items = items === undefined ? shapeOfValue(v, depth + 1) : widenDeep(items, shapeOfValue(v, depth + 1));
    return { type: 'list', maxSize: value.length, items: items ?? DYN };
  }
  if (value !== null && typeof value === 'object') {
    const properties: Record<string, CelShape> = {};
    let items: CelShape | undefined;
    let count = 0;
    for (const [k, v] of Object.entries(value)) {
      const s = shapeOfValue(v, depth + 1);
      properties[k] = s;
      items = items === undefined ? s : widenDeep(items, s);
      count++;
    }
    // A value does not say whether it is a struct or a map: give it both views.
    return { type: 'object', maxSize: count, properties, items: items ?? DYN };
  }
  return SCALAR('integer');
}

function widenDeep(a: CelShape, b: CelShape): CelShape {
  if (a.type !== b.type) return { type: 'dyn', maxSize: Math.max(a.maxSize, b.maxSize) };
  const out: CelShape = { type: a.type, maxSize: Math.max(a.maxSize, b.maxSize) };
  if (a.items || b.items) out.items = a.items && b.items ? widenDeep(a.items, b.items) : (a.items ?? b.items);
  if (a.properties || b.properties) {
    out.properties = { ...(a.properties ?? {}) };
    for (const [k, v] of Object.entries(b.properties ?? {})) out.properties[k] = out.properties[k] ? widenDeep(out.properties[k], v) : v;
  }
  return out;
}
