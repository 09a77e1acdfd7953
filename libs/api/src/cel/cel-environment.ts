import {
  celEnv,
  celFunc,
  celMethod,
  CelScalar,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
  parse,
  plan,
  type CelEnv,
  type CelFunc,
  type CelList,
  type CelValue,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { RE2JS } from 're2js';
import { QUALIFIED_FUNCTIONS } from './cel-extension-functions';
import { kubernetesValueLibraries } from './cel-kubernetes-libraries';
import { T, type CelCheckedType } from './cel-checker-types';
import { CelCheckFailure, checkCel, type CelCheckEnvironment } from './cel-checker';
import { restoreOptionalSyntax, rewriteOptionalSyntaxMapped, usesReservedNames } from './cel-optional-syntax';
import { CelCostLimitExceeded, evaluateWithCost } from './cel-runtime-cost';
import { celGoPositions } from './cel-source-positions';
import { PendingAuthorization } from './cel-authorizer-library';

/** The longest expression accepted, as Kubernetes' limit on a rule's source. */
export const MAX_EXPRESSION_LENGTH = 10 * 1024;

const PATTERN_CACHE_SIZE = 256;
const patterns = new Map<string, RE2JS>();

/** One RE2 program per pattern, compiled once: patterns come from rules, so the set is small and bounded here anyway. */
function compilePattern(pattern: string): RE2JS {
  let compiled = patterns.get(pattern);
  if (compiled === undefined) {
    compiled = RE2JS.compile(pattern);
    if (patterns.size >= PATTERN_CACHE_SIZE) patterns.delete(patterns.keys().next().value as string);
    patterns.set(pattern, compiled);
  }
  return compiled;
}

const DYN = CelScalar.DYN;
const STRING = CelScalar.STRING;
const INT = CelScalar.INT;
const BOOL = CelScalar.BOOL;
const DYN_LIST = listType(DYN);

function compare(a: CelValue, b: CelValue): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error(`no such overload: comparison of ${typeof a} and ${typeof b}`);
}

function items(list: CelList): CelValue[] {
  return Array.from(list);
}

function extreme(list: CelList, sign: number): CelValue {
  const values = items(list);
  if (values.length === 0) throw new Error(`${sign < 0 ? 'min' : 'max'}() of an empty list`);
  return values.reduce((best, v) => (compare(v, best) * sign > 0 ? v : best));
}

function sameValue(a: CelValue, b: CelValue): boolean {
  if (typeof a === 'bigint' || typeof a === 'number') return (typeof b === 'bigint' || typeof b === 'number') && a == b;
  return a === b;
}

/** Kubernetes' list library (k8s.io/apiserver/pkg/cel/library/lists.go). */
const listFunctions: CelFunc[] = [
  celMethod('isSorted', DYN_LIST, [], BOOL, function () {
    const values = items(this);
    for (let i = 1; i < values.length; i++) if (compare(values[i - 1], values[i]) > 0) return false;
    return true;
  }),
  celMethod('sum', DYN_LIST, [], DYN, function () {
    const values = items(this);
    if (values.length === 0) return 0n;
    if (values.every((v) => typeof v === 'bigint')) return values.reduce((s, v) => s + v, 0n);
    if (values.every((v) => typeof v === 'number')) return values.reduce((s, v) => s + v, 0);
    throw new Error('sum() needs a list of numbers of one type');
  }),
  celMethod('min', DYN_LIST, [], DYN, function () {
    return extreme(this, -1);
  }),
  celMethod('max', DYN_LIST, [], DYN, function () {
    return extreme(this, 1);
  }),
  celMethod('indexOf', DYN_LIST, [DYN], INT, function (needle) {
    return BigInt(items(this).findIndex((v) => sameValue(v, needle)));
  }),
  celMethod('lastIndexOf', DYN_LIST, [DYN], INT, function (needle) {
    const values = items(this);
    for (let i = values.length - 1; i >= 0; i--) if (sameValue(values[i], needle)) return BigInt(i);
    return -1n;
  }),
];

function findAll(text: string, pattern: string, limit: number): string[] {
  const matcher = compilePattern(pattern).matcher(text);
  const found: string[] = [];
  while ((limit < 0 || found.length < limit) && matcher.find()) found.push(matcher.group() ?? '');
  return found;
}

/** Kubernetes' regex library (k8s.io/apiserver/pkg/cel/library/regex.go), on RE2 as everywhere else here. */
const regexFunctions: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (pattern) {
    return findAll(this, pattern, 1)[0] ?? '';
  }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (pattern) {
    return findAll(this, pattern, -1);
  }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (pattern, limit) {
    return findAll(this, pattern, Number(limit));
  }),
];

/** CEL's global form of matches, `matches(text, pattern)`, beside the method form the engine has. */
const globalMatches: CelFunc = celFunc('matches', [STRING, STRING], BOOL, (text, pattern) => compilePattern(pattern).matcher(text).find());

/** Kubernetes' CEL parser refuses expressions nested deeper than this (its recursion limit). */
const MAX_NESTING = 250;

/** The deepest nesting of brackets outside string literals: a cheap refusal before the parser recurses. */
function bracketDepth(source: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quote !== undefined) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return max;
}

function tooDeep(error: unknown): boolean {
  return error instanceof RangeError;
}

/** The variables an expression may name, each of type dyn; others fail to compile. */
export type CelVariables = readonly string[];

/** What an expression is compiled against: variable names (all dyn), or typed declarations. */
export type CelDeclarations = CelVariables | CelCheckEnvironment;

function environmentOf(declarations: CelDeclarations): CelCheckEnvironment {
  if (!Array.isArray(declarations)) return declarations as CelCheckEnvironment;
  return { variables: new Map((declarations as CelVariables).map((name) => [name, T.dyn])), structs: new Map() };
}

/** A compiled expression: evaluate it with values for its variables. */
export interface CelProgram {
  readonly source: string;
  readonly ast: ReturnType<typeof parse>['expr'];
  /** Names of the variables the expression refers to (`oldSelf` makes a rule a transition rule). */
  readonly references: ReadonlySet<string>;
  /** The type cel-go's checker gives the expression (`bool`, `string`, `dyn`, ...). */
  readonly outputType: CelCheckedType;
  evaluate(bindings: Record<string, unknown>): CelOutcome;
  /**
   * Evaluates with cel-go's runtime cost tracking: the outcome carries the actual cost of what was
   * evaluated; past `limit` the evaluation stops with `operation cancelled: actual cost limit exceeded`.
   */
  evaluateWithCost(bindings: Record<string, unknown>, limit: number): CelCostedOutcome;
}

export type CelOutcome = { ok: true; value: unknown } | { ok: false; error: string };
export type CelCostedOutcome = CelOutcome & { cost: number; limitExceeded?: boolean };

/** The CEL environment Kubernetes gives rules: the standard library, the strings extension, lists and regex. */
function environment(): CelEnv {
  return celEnv({
    funcs: [...strings, ...listFunctions, ...regexFunctions, globalMatches, ...kubernetesValueLibraries],
    re2: { compile: (pattern) => ({ test: (text) => compilePattern(pattern).matcher(text).find() }) },
  });
}

let shared: CelEnv | undefined;

const conversions = new Map<string, (bindings: Record<string, unknown>) => unknown>();

/**
 * A string of a schema with `format: date-time`, `date` or `duration` as the timestamp or duration
 * Kubernetes hands rules (its checker types such fields so); undefined where it does not parse.
 */
export function celValueOfFormat(format: string, text: string): unknown {
  const call = format === 'date-time' || format === 'date' ? 'timestamp' : format === 'duration' ? 'duration' : undefined;
  if (call === undefined) return undefined;
  shared ??= environment();
  let run = conversions.get(call);
  if (run === undefined) {
    run = plan(shared, parse(`${call}(s)`).expr) as (bindings: Record<string, unknown>) => unknown;
    conversions.set(call, run);
  }
  const value = run({ s: format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text });
  return isCelError(value) ? undefined : value;
}

function sourcePositions(parsed: ReturnType<typeof parse>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [id, offset] of Object.entries(parsed.sourceInfo?.positions ?? {})) out[id] = Number(offset);
  return out;
}

/** Whether `duration(literal)` or `timestamp(literal)` evaluates: Kubernetes refuses literals that do not parse. */
function literalCallParses(env: CelEnv, call: Expr): boolean {
  try {
    return !isCelError(evaluateWithCost(env, call, {}, Number.POSITIVE_INFINITY).value);
  } catch {
    return false;
  }
}

type Expr = CelProgram['ast'];

/** Calls `visit` on each node of `ast`, children before their depth passes the bound (expressions are bounded in length anyway). */
function walkAst(ast: Expr, visit: (node: Expr) => void, depth = 0): void {
  if (depth > 500) return;
  visit(ast);
  const kind = ast.exprKind;
  const children: Expr[] = [];
  switch (kind.case) {
    case 'selectExpr':
      if (kind.value.operand) children.push(kind.value.operand);
      break;
    case 'callExpr':
      if (kind.value.target) children.push(kind.value.target);
      children.push(...kind.value.args);
      break;
    case 'listExpr':
      children.push(...kind.value.elements);
      break;
    case 'structExpr':
      for (const e of kind.value.entries) {
        if (e.keyKind.case === 'mapKey') children.push(e.keyKind.value);
        if (e.value) children.push(e.value);
      }
      break;
    case 'comprehensionExpr': {
      const c = kind.value;
      for (const part of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) if (part) children.push(part);
      break;
    }
    default:
      break;
  }
  for (const child of children) walkAst(child, visit, depth + 1);
}

/** `a.b.c` for a chain of selections on an identifier, else undefined. */
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

function rootName(e: Expr, depth = 0): string | undefined {
  const kind = e.exprKind;
  if (depth > 20) return undefined;
  if (kind.case === 'identExpr') return kind.value.name;
  if (kind.case === 'selectExpr' && kind.value.operand) return rootName(kind.value.operand, depth + 1);
  return undefined;
}

function ident(id: bigint, name: string): Expr {
  return { id, exprKind: { case: 'identExpr', value: { name } } } as unknown as Expr;
}

function call(id: bigint, fn: string, args: Expr[], target?: Expr): Expr {
  return { id, exprKind: { case: 'callExpr', value: { function: fn, args, ...(target ? { target } : {}) } } } as unknown as Expr;
}

/**
 * The rewrites cel-go's checker and macros make, in place: a namespaced global function read as a
 * member call (`format.dns1123Label()`, `optional.of(x)`) becomes a global call of its whole name,
 * unless its root is a variable; `x.optMap(v, e)` and `x.optFlatMap(v, e)` expand as cel-go's
 * optional library expands them.
 */
function resolveFunctions(e: Expr, variables: CelVariables, depth = 0): Expr {
  if (depth > 500) return e;
  const kind = e.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      if (kind.value.operand) kind.value.operand = resolveFunctions(kind.value.operand, variables, depth + 1);
      return e;
    case 'callExpr': {
      const c = kind.value;
      c.args = c.args.map((a) => resolveFunctions(a, variables, depth + 1));
      if (c.target) {
        const qualified = qualifiedName(c.target);
        const root = rootName(c.target);
        if (qualified !== undefined && QUALIFIED_FUNCTIONS.has(`${qualified}.${c.function}`) && root !== undefined && !variables.includes(root)) {
          return call(e.id, `${qualified}.${c.function}`, c.args);
        }
        c.target = resolveFunctions(c.target, variables, depth + 1);
        if ((c.function === 'optMap' || c.function === 'optFlatMap') && c.args.length === 2) {
          const variable = c.args[0].exprKind;
          if (variable.case !== 'identExpr') throw new Error(`compilation failed: ${c.function}() variable name must be a simple identifier`);
          const bound: Expr = {
            id: e.id,
            exprKind: {
              case: 'comprehensionExpr',
              value: {
                iterRange: { id: e.id, exprKind: { case: 'listExpr', value: { elements: [], optionalIndices: [] } } },
                iterVar: '#unused',
                iterVar2: '',
                accuVar: variable.value.name,
                accuInit: call(e.id, 'value', [], c.target),
                loopCondition: { id: e.id, exprKind: { case: 'constExpr', value: { constantKind: { case: 'boolValue', value: false } } } },
                loopStep: ident(e.id, variable.value.name),
                result: c.args[1],
              },
            },
          } as unknown as Expr;
          const present = c.function === 'optMap' ? call(e.id, 'optional.of', [bound]) : bound;
          return call(e.id, '_?_:_', [call(e.id, 'hasValue', [], c.target), present, call(e.id, 'optional.none', [])]);
        }
      }
      return e;
    }
    case 'listExpr':
      kind.value.elements = kind.value.elements.map((x) => resolveFunctions(x, variables, depth + 1));
      return e;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') entry.keyKind = { case: 'mapKey', value: resolveFunctions(entry.keyKind.value, variables, depth + 1) };
        if (entry.value) entry.value = resolveFunctions(entry.value, variables, depth + 1);
      }
      return e;
    case 'comprehensionExpr': {
      const c = kind.value;
      if (c.iterRange) c.iterRange = resolveFunctions(c.iterRange, variables, depth + 1);
      if (c.accuInit) c.accuInit = resolveFunctions(c.accuInit, variables, depth + 1);
      if (c.loopCondition) c.loopCondition = resolveFunctions(c.loopCondition, variables, depth + 1);
      if (c.loopStep) c.loopStep = resolveFunctions(c.loopStep, variables, depth + 1);
      if (c.result) c.result = resolveFunctions(c.result, variables, depth + 1);
      return e;
    }
    default:
      return e;
  }
}

/**
 * Compiles `source` for the variables in `variables`; throws an Error whose message says why it cannot
 * (syntax, length, an undeclared name). The expression is parsed once and planned once.
 */
export function compileCel(source: string, declarations: CelDeclarations): CelProgram {
  if (source.length > MAX_EXPRESSION_LENGTH) throw new Error(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  if (source.trim() === '') throw new Error('expression is empty');
  if (bracketDepth(source) > MAX_NESTING) throw new Error(`compilation failed: expression nests deeper than ${MAX_NESTING} levels`);
  if (usesReservedNames(source)) throw new Error('compilation failed: undeclared reference to a reserved name');
  const checkEnv = environmentOf(declarations);
  const variables = [...checkEnv.variables.keys()];
  let parsed: ReturnType<typeof parse>;
  const rewritten = rewriteOptionalSyntaxMapped(source);
  try {
    parsed = parse(rewritten.text);
    parsed.expr = restoreOptionalSyntax(parsed.expr);
  } catch (error) {
    throw new Error(`compilation failed: ${tooDeep(error) ? 'expression nests too deeply' : error instanceof Error ? error.message : String(error)}`);
  }
  shared ??= environment();
  const env = shared;
  try {
    parsed.expr = resolveFunctions(parsed.expr, variables);
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
  const positions = celGoPositions(parsed.expr, rewritten.text, sourcePositions(parsed), source, rewritten.toOriginal);
  let outputType: CelCheckedType;
  try {
    outputType = checkCel(parsed.expr, source, checkEnv, positions, (call) => literalCallParses(env, call)).outputType;
  } catch (error) {
    if (error instanceof CelCheckFailure) throw new Error(`compilation failed: ${error.message}`);
    if (tooDeep(error)) throw new Error('compilation failed: expression nests too deeply');
    throw error;
  }
  const references = new Set<string>();
  walkAst(parsed.expr, (node) => {
    if (node.exprKind.case === 'identExpr') references.add(node.exprKind.value.name);
  });
  return {
    source,
    ast: parsed.expr,
    references,
    outputType,
    evaluate(bindings) {
      try {
        const { value } = evaluateWithCost(env, parsed.expr, bindings, Number.POSITIVE_INFINITY);
        if (isCelError(value)) return { ok: false, error: value.message };
        return { ok: true, value };
      } catch (error) {
        if (error instanceof PendingAuthorization) throw error;
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
    evaluateWithCost(bindings, limit) {
      try {
        const { value, cost } = evaluateWithCost(env, parsed.expr, bindings, limit);
        if (isCelError(value)) return { ok: false, error: value.message, cost };
        return { ok: true, value, cost };
      } catch (error) {
        // A check the authorizer has not answered yet: the caller answers it and evaluates again.
        if (error instanceof PendingAuthorization) throw error;
        if (error instanceof CelCostLimitExceeded) return { ok: false, error: error.message, cost: limit + 1, limitExceeded: true };
        return { ok: false, error: error instanceof Error ? error.message : String(error), cost: 0 };
      }
    },
  };
}

/** A CEL value as JSON (lists and maps become arrays and objects, ints numbers), for messages and patches. */
export function celToJson(value: unknown, depth = 0): unknown {
  if (depth > 100) return null;
  if (typeof value === 'bigint') return Number(value);
  if (isCelUint(value)) return Number(value.value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v: unknown) => celToJson(v, depth + 1));
  if (isCelList(value)) return Array.from(value, (v) => celToJson(v, depth + 1));
  if (isCelMap(value) || value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value.entries()) out[String(k)] = celToJson(v, depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = celToJson(v, depth + 1);
  return out;
}
