import type { parse } from '@bufbuild/cel';
import { RE2JS } from 're2js';
import {
  formatType,
  instantiate,
  isAssignable as assignable,
  isAssignableList as assignableList,
  isOptionalType,
  mostGeneral,
  paramNames,
  sameType,
  Substitutions,
  substitute,
  T,
  typeParams,
  type CelCheckedType,
} from './cel-checker-types';
import { CEL_FUNCTIONS, CEL_TYPE_IDENTIFIERS, LIBRARY_STRUCT_TYPES, type CelFunctionDeclarations, type CelOverload } from './cel-declarations';

/**
 * CEL's type checker as cel-go's (checker/checker.go of v0.22) runs it in Kubernetes 1.32: each node
 * gets a type from the declared variables and functions, each call resolves against its overloads,
 * lists and maps must be homogeneous (HomogeneousAggregateLiterals), and a checked expression then
 * passes Kubernetes' literal validators (durations, timestamps and regular expressions must parse;
 * aggregate literals must hold one type). Errors read as cel-go prints them:
 * `ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'`, followed
 * by the line of source and a caret under the place.
 */

type Expr = ReturnType<typeof parse>['expr'];
type Call = Extract<Expr['exprKind'], { case: 'callExpr' }>['value'];

/** The declarations an expression is checked against. */
export interface CelCheckEnvironment {
  /** Variables by name (a name may hold dots: `authorizer.requestResource`). */
  variables: ReadonlyMap<string, CelCheckedType>;
  /** Fields of the struct types the variables use, by type name. */
  structs: ReadonlyMap<string, ReadonlyMap<string, CelCheckedType>>;
  functions?: CelFunctionDeclarations;
}

export interface CelCheckError {
  /** Offset in code points of the source. */
  offset: number;
  message: string;
}

export interface CelCheckResult {
  /** The expression's type (type parameters left unbound are dyn). */
  outputType: CelCheckedType;
  /** The type of each node. */
  types: Map<Expr, CelCheckedType>;
}

/** Evaluates a call of `duration` or `timestamp` on a literal; false when it fails (the literal does not parse). */
export type LiteralCallEvaluator = (call: Expr) => boolean;

class Scope {
  private readonly names = new Map<string, CelCheckedType>();

  constructor(readonly parent?: Scope) {}

  add(name: string, type: CelCheckedType): void {
    this.names.set(name, type);
  }

  find(name: string): CelCheckedType | undefined {
    return this.names.get(name) ?? this.parent?.find(name);
  }
}

/** `a.b.c` for a chain of selections on an identifier (never a presence test), else undefined. */
function qualifiedName(e: Expr, depth = 0): string | undefined {
  const kind = e.exprKind;
  if (depth > 50) return undefined;
  if (kind.case === 'identExpr') return kind.value.name;
  if (kind.case === 'selectExpr' && !kind.value.testOnly && kind.value.operand) {
    const base = qualifiedName(kind.value.operand, depth + 1);
    return base === undefined ? undefined : `${base}.${kind.value.field}`;
  }
  return undefined;
}

function literalString(e: Expr): string | undefined {
  const kind = e.exprKind;
  return kind.case === 'constExpr' && kind.value.constantKind.case === 'stringValue' ? kind.value.constantKind.value : undefined;
}

function formatFunction(args: readonly CelCheckedType[], instance: boolean): string {
  let out = '';
  let rest = args;
  if (instance) {
    out += `${formatType(args[0])}.`;
    rest = args.slice(1);
  }
  return `${out}(${rest.map((a) => formatType(a)).join(', ')})`;
}

const MAX_DEPTH = 250;

/** CEL's reserved words, which Kubernetes escapes as `__word__` in property names. */
const RESERVED_FIELD_NAMES = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

class Checker {
  private mappings = new Substitutions();
  private freeTypeVars = 0;
  readonly types = new Map<Expr, CelCheckedType>();
  readonly errors: CelCheckError[] = [];
  private scope: Scope;
  private readonly functions: CelFunctionDeclarations;

  constructor(
    private readonly env: CelCheckEnvironment,
    private readonly positions: ReadonlyMap<Expr, number>,
  ) {
    this.scope = new Scope();
    this.functions = env.functions ?? CEL_FUNCTIONS;
  }

  private report(e: Expr, message: string): void {
    this.errors.push({ offset: this.positions.get(e) ?? 0, message });
  }

  private setType(e: Expr, t: CelCheckedType): void {
    this.types.set(e, t);
  }

  private getType(e: Expr): CelCheckedType {
    return this.types.get(e) ?? T.error;
  }

  private lookupIdent(name: string): CelCheckedType | undefined {
    return this.scope.find(name) ?? this.env.variables.get(name) ?? CEL_TYPE_IDENTIFIERS.get(name);
  }

  private isAssignable(t1: CelCheckedType, t2: CelCheckedType): boolean {
    const subs = assignable(this.mappings, t1, t2);
    if (subs === undefined) return false;
    this.mappings = subs;
    return true;
  }

  private newTypeVar(): CelCheckedType {
    return T.param(`_var${this.freeTypeVars++}`);
  }

  check(e: Expr, depth = 0): void {
    if (depth > MAX_DEPTH) {
      this.setType(e, T.error);
      return;
    }
    const kind = e.exprKind;
    switch (kind.case) {
      case 'constExpr':
        this.setType(e, this.constType(e));
        return;
      case 'identExpr': {
        const type = this.lookupIdent(kind.value.name);
        if (type === undefined) {
          this.setType(e, T.error);
          this.report(e, `undeclared reference to '${kind.value.name}' (in container '')`);
        } else this.setType(e, type);
        return;
      }
      case 'selectExpr':
        this.checkSelect(e, kind.value, depth);
        return;
      case 'callExpr':
        this.checkCall(e, kind.value, depth);
        return;
      case 'listExpr':
        this.checkList(e, kind.value, depth);
        return;
      case 'structExpr':
        if (kind.value.messageName === '') this.checkMap(e, kind.value, depth);
        else this.checkStruct(e, kind.value, depth);
        return;
      case 'comprehensionExpr':
        this.checkComprehension(e, kind.value, depth);
        return;
      default:
        this.setType(e, T.error);
        this.report(e, 'unexpected unspecified type: Expr');
    }
  }

  private constType(e: Expr): CelCheckedType {
    const kind = e.exprKind;
    if (kind.case !== 'constExpr') return T.error;
    switch (kind.value.constantKind.case) {
      case 'boolValue':
        return T.bool;
      case 'bytesValue':
        return T.bytes;
      case 'doubleValue':
        return T.double;
      case 'int64Value':
        return T.int;
      case 'uint64Value':
        return T.uint;
      case 'stringValue':
        return T.string;
      case 'nullValue':
        return T.null;
      default:
        return T.error;
    }
  }

  private checkSelect(e: Expr, sel: Extract<Expr['exprKind'], { case: 'selectExpr' }>['value'], depth: number): void {
    // A dotted name may be a variable (`authorizer.requestResource`) or a type (`google.protobuf.Duration`).
    const qname = qualifiedName(e);
    if (qname !== undefined) {
      const declared = this.lookupIdent(qname);
      if (declared !== undefined) {
        this.setType(e, declared);
        (e as { exprKind: Expr['exprKind'] }).exprKind = { case: 'identExpr', value: { name: qname } } as Expr['exprKind'];
        return;
      }
    }
    let result = this.checkSelectField(e, sel.operand, sel.field, false, depth);
    if (sel.testOnly) result = T.bool;
    this.setType(e, substitute(this.mappings, result, false));
  }

  private checkSelectField(e: Expr, operand: Expr | undefined, field: string, optional: boolean, depth: number): CelCheckedType {
    if (operand === undefined) return T.error;
    this.check(operand, depth + 1);
    const operandType = substitute(this.mappings, this.getType(operand), false);
    const isOpt = isOptionalType(operandType);
    const target = isOpt ? operandType.params[0] : operandType;
    let result: CelCheckedType = T.error;
    switch (target.kind) {
      case 'map':
        result = target.value;
        break;
      case 'struct': {
        const found = this.lookupFieldType(e, target.name, field);
        if (found !== undefined) result = found;
        break;
      }
      case 'param':
        this.isAssignable(T.dyn, target);
        result = T.dyn;
        break;
      default:
        if (target.kind !== 'dyn' && target.kind !== 'error') this.report(e, `type '${formatType(target)}' does not support field selection`);
        result = T.dyn;
    }
    return isOpt || optional ? T.optional(result) : result;
  }

  private lookupFieldType(e: Expr, structType: string, field: string): CelCheckedType | undefined {
    const fields = this.env.structs.get(structType);
    if (fields === undefined && !LIBRARY_STRUCT_TYPES.has(structType)) {
      this.report(e, `unexpected failed resolution of '${structType}'`);
      return undefined;
    }
    // Kubernetes 1.32 finds a property named by a CEL keyword (`self.namespace`) under its escaped name too.
    const found = fields?.get(field) ?? (RESERVED_FIELD_NAMES.has(field) ? fields?.get(`__${field}__`) : undefined);
    if (found !== undefined) return found;
    this.report(e, `undefined field '${field}'`);
    return undefined;
  }

  private checkCall(e: Expr, call: Call, depth: number): void {
    const fnName = call.function;
    if (fnName === '_?._' && call.args.length === 2) {
      const [operand, field] = call.args;
      const name = literalString(field);
      if (name === undefined) {
        this.report(field, `unsupported optional field selection: ${String(field.id)}`);
        return;
      }
      this.setType(field, T.string);
      const result = this.checkSelectField(e, operand, name, true, depth);
      this.setType(e, substitute(this.mappings, result, false));
      return;
    }
    for (const arg of call.args) this.check(arg, depth + 1);
    if (call.target === undefined) {
      const fn = this.functions.get(fnName);
      if (fn === undefined) {
        this.report(e, `undeclared reference to '${fnName}' (in container '')`);
        this.setType(e, T.error);
        return;
      }
      this.resolveOverloadOrError(e, fnName, fn, undefined, call.args);
      return;
    }
    // `a.b.c(x)` is the function `a.b.c` when one is declared, else `c` with the target `a.b`.
    const prefix = qualifiedName(call.target);
    if (prefix !== undefined) {
      const qualified = this.functions.get(`${prefix}.${fnName}`);
      if (qualified !== undefined) {
        call.function = `${prefix}.${fnName}`;
        call.target = undefined;
        this.resolveOverloadOrError(e, call.function, qualified, undefined, call.args);
        return;
      }
    }
    this.check(call.target, depth + 1);
    const fn = this.functions.get(fnName);
    if (fn !== undefined) {
      this.resolveOverloadOrError(e, fnName, fn, call.target, call.args);
      return;
    }
    this.setType(e, T.error);
    this.report(e, `undeclared reference to '${fnName}' (in container '')`);
  }

  private resolveOverloadOrError(e: Expr, fnName: string, overloads: readonly CelOverload[], target: Expr | undefined, args: readonly Expr[]): void {
    const argTypes = [...(target ? [this.getType(target)] : []), ...args.map((a) => this.getType(a))];
    let resultType: CelCheckedType | undefined;
    for (const overload of overloads) {
      if ((target === undefined) === overload.member) continue;
      if (fnName === '_&&_' || fnName === '_||_') {
        let failed = false;
        argTypes.forEach((argType, i) => {
          if (!this.isAssignable(argType, T.bool)) {
            this.report(args[i], `expected type 'bool' but found '${formatType(argType)}'`);
            failed = true;
          }
        });
        this.setType(e, failed ? T.error : T.bool);
        return;
      }
      const params = new Set<string>();
      for (const a of overload.args) paramNames(a, params);
      paramNames(overload.result, params);
      const fresh = new Map<string, CelCheckedType>();
      for (const p of params) fresh.set(p, this.newTypeVar());
      const candidate = overload.args.map((a) => instantiate(a, fresh));
      const result = instantiate(overload.result, fresh);
      if (candidate.length !== argTypes.length) continue;
      const subs = assignableList(this.mappings, argTypes, candidate);
      if (subs === undefined) continue;
      this.mappings = subs;
      const fnResult = substitute(this.mappings, result, false);
      if (resultType === undefined) resultType = fnResult;
      else if (resultType.kind !== 'dyn' && !sameType(fnResult, resultType)) resultType = T.dyn;
    }
    if (resultType === undefined) {
      const shown = argTypes.map((t) => substitute(this.mappings, t, true));
      this.report(e, `found no matching overload for '${fnName}' applied to '${formatFunction(shown, target !== undefined)}'`);
      this.setType(e, T.error);
      return;
    }
    this.setType(e, resultType);
  }

  private joinTypes(e: Expr, previous: CelCheckedType | undefined, current: CelCheckedType): CelCheckedType {
    if (previous === undefined) return current;
    if (this.isAssignable(previous, current)) return mostGeneral(previous, current);
    this.report(e, `expected type '${formatType(previous)}' but found '${formatType(current)}'`);
    return T.error;
  }

  private checkList(e: Expr, list: Extract<Expr['exprKind'], { case: 'listExpr' }>['value'], depth: number): void {
    const optional = new Set(list.optionalIndices);
    let elems: CelCheckedType | undefined;
    list.elements.forEach((element, i) => {
      this.check(element, depth + 1);
      let elemType = this.getType(element);
      if (optional.has(i)) {
        if (isOptionalType(elemType)) elemType = elemType.params[0];
        else if (elemType.kind !== 'dyn') this.report(element, `expected type '${formatType(T.optional(elemType))}' but found '${formatType(elemType)}'`);
      }
      elems = this.joinTypes(element, elems, elemType);
    });
    this.setType(e, T.list(elems ?? this.newTypeVar()));
  }

  private checkMap(e: Expr, map: Extract<Expr['exprKind'], { case: 'structExpr' }>['value'], depth: number): void {
    let keyType: CelCheckedType | undefined;
    let valueType: CelCheckedType | undefined;
    for (const entry of map.entries) {
      if (entry.keyKind.case !== 'mapKey' || entry.value === undefined) continue;
      const key = entry.keyKind.value;
      this.check(key, depth + 1);
      keyType = this.joinTypes(key, keyType, this.getType(key));
      this.check(entry.value, depth + 1);
      let vt = this.getType(entry.value);
      if (entry.optionalEntry) {
        if (isOptionalType(vt)) vt = vt.params[0];
        else if (vt.kind !== 'dyn') this.report(entry.value, `expected type '${formatType(T.optional(vt))}' but found '${formatType(vt)}'`);
      }
      valueType = this.joinTypes(entry.value, valueType, vt);
    }
    if (keyType === undefined || valueType === undefined) {
      keyType = this.newTypeVar();
      valueType = this.newTypeVar();
    }
    this.setType(e, T.map(keyType, valueType));
  }

  private checkStruct(e: Expr, msg: Extract<Expr['exprKind'], { case: 'structExpr' }>['value'], depth: number): void {
    const ident = this.lookupIdent(msg.messageName);
    if (ident === undefined) {
      this.report(e, `undeclared reference to '${msg.messageName}' (in container '')`);
      this.setType(e, T.error);
      return;
    }
    let result: CelCheckedType = T.error;
    if (ident.kind !== 'type') this.report(e, `'${formatType(ident)}' is not a type`);
    else if (ident.param?.kind === 'struct') result = ident.param;
    else this.report(e, `'${ident.param ? formatType(ident.param) : 'type'}' is not a message type`);
    this.setType(e, result);
    for (const entry of msg.entries) {
      if (entry.value === undefined) continue;
      this.check(entry.value, depth + 1);
      if (result.kind !== 'struct' || entry.keyKind.case !== 'fieldKey') continue;
      const fieldType = this.lookupFieldType(e, result.name, entry.keyKind.value) ?? T.error;
      let vt = this.getType(entry.value);
      if (entry.optionalEntry && isOptionalType(vt)) vt = vt.params[0];
      if (!this.isAssignable(fieldType, vt)) {
        this.report(e, `expected type of field '${entry.keyKind.value}' is '${formatType(fieldType)}' but provided type is '${formatType(vt)}'`);
      }
    }
  }

  private checkComprehension(e: Expr, c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'], depth: number): void {
    if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result) {
      this.setType(e, T.error);
      return;
    }
    this.check(c.iterRange, depth + 1);
    this.check(c.accuInit, depth + 1);
    const rangeType = substitute(this.mappings, this.getType(c.iterRange), false);
    const accuType = this.getType(c.accuInit);
    const outer = this.scope;
    this.scope = new Scope(outer);
    this.scope.add(c.accuVar, accuType);
    let varType: CelCheckedType;
    let var2Type: CelCheckedType | undefined;
    switch (rangeType.kind) {
      case 'list':
        varType = rangeType.elem;
        if (c.iterVar2) {
          var2Type = varType;
          varType = T.int;
        }
        break;
      case 'map':
        varType = rangeType.key;
        if (c.iterVar2) var2Type = rangeType.value;
        break;
      case 'dyn':
      case 'error':
      case 'param':
        this.isAssignable(T.dyn, rangeType);
        varType = T.dyn;
        if (c.iterVar2) var2Type = T.dyn;
        break;
      default:
        this.report(c.iterRange, `expression of type '${formatType(rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
        varType = T.error;
    }
    const accuScope = this.scope;
    this.scope = new Scope(accuScope);
    this.scope.add(c.iterVar, varType);
    if (c.iterVar2 && var2Type !== undefined) this.scope.add(c.iterVar2, var2Type);
    this.check(c.loopCondition, depth + 1);
    this.assertType(c.loopCondition, T.bool);
    this.check(c.loopStep, depth + 1);
    this.assertType(c.loopStep, accuType);
    this.scope = accuScope;
    this.check(c.result, depth + 1);
    this.scope = outer;
    this.setType(e, substitute(this.mappings, this.getType(c.result), false));
  }

  private assertType(e: Expr, t: CelCheckedType): void {
    const actual = this.getType(e);
    if (!this.isAssignable(t, actual)) this.report(e, `expected type '${formatType(t)}' but found '${formatType(actual)}'`);
  }

  /** The final types: bound parameters replaced, unbound ones dyn. */
  finish(): void {
    for (const [e, t] of this.types) this.types.set(e, substitute(this.mappings, t, true));
  }
}

function children(e: Expr): Expr[] {
  const kind = e.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      return kind.value.operand ? [kind.value.operand] : [];
    case 'callExpr':
      return [...(kind.value.target ? [kind.value.target] : []), ...kind.value.args];
    case 'listExpr':
      return kind.value.elements;
    case 'structExpr':
      return kind.value.entries.flatMap((entry) => [...(entry.keyKind.case === 'mapKey' ? [entry.keyKind.value] : []), ...(entry.value ? [entry.value] : [])]);
    case 'comprehensionExpr': {
      const c = kind.value;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result].filter((x): x is Expr => x !== undefined);
    }
    default:
      return [];
  }
}

function descendants(e: Expr, visit: (node: Expr) => void, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  visit(e);
  for (const child of children(e)) descendants(child, visit, depth + 1);
}

/**
 * Kubernetes' AST validators (cel.ValidateDurationLiterals, ValidateTimestampLiterals,
 * ValidateRegexLiterals, ValidateHomogeneousAggregateLiterals), run on a checked expression.
 */
function validate(ast: Expr, types: ReadonlyMap<Expr, CelCheckedType>, positions: ReadonlyMap<Expr, number>, evaluate: LiteralCallEvaluator): CelCheckError[] {
  const errors: CelCheckError[] = [];
  const report = (e: Expr, message: string) => errors.push({ offset: positions.get(e) ?? 0, message });
  const typeOf = (e: Expr) => types.get(e) ?? T.dyn;
  const mismatch = (e: Expr, expected: CelCheckedType, actual: CelCheckedType) =>
    report(e, `expected type '${formatType(expected)}' but found '${formatType(actual)}'`);
  descendants(ast, (node) => {
    const kind = node.exprKind;
    if (kind.case === 'callExpr') {
      const fn = kind.value.function;
      const literal = kind.value.args[0];
      if (literal?.exprKind.case !== 'constExpr') return;
      if (fn === 'duration' || fn === 'timestamp') {
        if (!evaluate(node)) report(literal, `invalid ${fn} argument`);
      } else if (fn === 'matches') {
        const pattern = literalString(literal);
        if (pattern === undefined) return;
        try {
          RE2JS.compile(pattern);
        } catch {
          report(literal, 'invalid matches argument');
        }
      }
    } else if (kind.case === 'listExpr') {
      const optional = new Set(kind.value.optionalIndices);
      let elemType: CelCheckedType | undefined;
      for (let i = 0; i < kind.value.elements.length; i++) {
        const element = kind.value.elements[i];
        let et = typeOf(element);
        if (optional.has(i)) et = typeParams(et)[0] ?? T.dyn;
        if (elemType === undefined) {
          elemType = et;
          continue;
        }
        if (!sameType(elemType, et, false)) {
          mismatch(element, elemType, et);
          break;
        }
      }
    } else if (kind.case === 'structExpr' && kind.value.messageName === '') {
      let keyType: CelCheckedType | undefined;
      let valueType: CelCheckedType | undefined;
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case !== 'mapKey' || entry.value === undefined) continue;
        const kt = typeOf(entry.keyKind.value);
        let vt = typeOf(entry.value);
        if (entry.optionalEntry) vt = typeParams(vt)[0] ?? T.dyn;
        if (keyType === undefined || valueType === undefined) {
          keyType = kt;
          valueType = vt;
          continue;
        }
        if (!sameType(keyType, kt, false)) mismatch(entry.keyKind.value, keyType, kt);
        if (!sameType(valueType, vt, false)) mismatch(entry.value, valueType, vt);
      }
    }
  });
  return errors;
}

/** cel-go's Errors.ToDisplayString: sorted by place, each with its line of source and a caret. */
export function formatCheckErrors(source: string, errors: readonly CelCheckError[]): string {
  const chars = Array.from(source);
  const lineStarts = [0];
  chars.forEach((c, i) => {
    if (c === '\n') lineStarts.push(i + 1);
  });
  const located = errors.map((error) => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1] <= error.offset) line++;
    return { ...error, line: line + 1, column: error.offset - lineStarts[line] };
  });
  located.sort((a, b) => a.line - b.line || a.column - b.column);
  const shown = located.slice(0, 100).map((error) => {
    let text = `ERROR: <input>:${error.line}:${error.column + 1}: ${error.message}`;
    const start = lineStarts[error.line - 1];
    const end = error.line < lineStarts.length ? lineStarts[error.line] - 1 : chars.length;
    const snippet = chars.slice(start, end);
    if (snippet.length <= 16384) {
      const wide = (c: string | undefined) => c !== undefined && Buffer.byteLength(c) > 1;
      let indicator = '';
      for (let i = 0; i < error.column && i < snippet.length; i++) indicator += wide(snippet[i]) ? '\uff0e' : '.';
      indicator += wide(snippet[error.column]) ? '\uff3e' : '^';
      text += `\n | ${snippet.join('').replace(/\t/g, ' ')}\n | ${indicator}`;
    }
    return text;
  });
  if (located.length > 100) shown.push(`${located.length - 100} more errors were truncated`);
  return shown.join('\n');
}

export class CelCheckFailure extends Error {}

/**
 * Checks `ast` (in place: qualified names become identifiers and namespaced functions global calls,
 * as cel-go rewrites them) and returns its types; throws a CelCheckFailure whose message is cel-go's
 * issues text when the expression is ill-typed or a literal does not pass Kubernetes' validators.
 */
export function checkCel(
  ast: Expr,
  source: string,
  env: CelCheckEnvironment,
  positions: ReadonlyMap<Expr, number>,
  evaluate: LiteralCallEvaluator,
): CelCheckResult {
  const checker = new Checker(env, positions);
  checker.check(ast);
  checker.finish();
  if (checker.errors.length > 0) throw new CelCheckFailure(formatCheckErrors(source, checker.errors));
  const invalid = validate(ast, checker.types, positions, evaluate);
  if (invalid.length > 0) throw new CelCheckFailure(formatCheckErrors(source, invalid));
  return { outputType: checker.types.get(ast) ?? T.dyn, types: checker.types };
}
