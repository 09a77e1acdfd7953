import {
  fieldDuplicate,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  goQuote,
  isRecord,
  RenderedValue,
  type FieldError,
} from '@svc/machinery';
import type { JsonSchema } from '../schema/json-schema';
import { celValueOfFormat, compileCel, type CelProgram } from './cel-environment';
import {
  costExceededMessage,
  declaredSizes,
  estimateCost,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  U64_MAX,
} from './cel-cost';
import { DECL, escapeCelName, ruleDeclarations, schemaDeclType, unboundedCardinality, type CelDeclType } from './cel-decl-type';

/**
 * `x-svc-validations` (Kubernetes' `x-kubernetes-validations`): CEL rules on the nodes of a custom
 * resource's schema, with `self` bound to the node's value and `oldSelf` to its stored value on
 * updates. Checked and costed when the CRD is written; evaluated with a cost bound when objects are.
 */

export const VALIDATIONS_MARKER = 'x-svc-validations';

/** One entry of `x-svc-validations`, as written. */
export interface ValidationRuleSpec {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

const REASONS = ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'];
/** Bounds on what a rule's message may grow to (Kubernetes cuts messageExpression results alike). */
const MAX_MESSAGE_LENGTH = 5000;
/** Rules per schema node, as a bound on hostile CRDs. */
const MAX_RULES_PER_NODE = 100;

interface CompiledRule {
  spec: ValidationRuleSpec;
  program: CelProgram;
  message?: CelProgram;
  transition: boolean;
  fieldPath: PathPart[];
}

type PathPart = { field: string } | { key: string } | { index: number };

interface RuleNode {
  schemaType: string;
  rules: CompiledRule[];
  properties: Map<string, RuleNode>;
  items?: RuleNode;
  additional?: RuleNode;
  /** List map keys, when the node is a list whose items correlate with the stored list by them. */
  mapKeys?: string[];
  schema: JsonSchema;
}

function rulesOf(schema: JsonSchema): unknown[] {
  const rules = (schema as Record<string, unknown>)[VALIDATIONS_MARKER];
  return Array.isArray(rules) ? rules : [];
}

function schemaTypeName(schema: JsonSchema): string {
  if (schema['x-svc-int-or-string'] === true) return 'integer-or-string';
  return typeof schema.type === 'string' ? schema.type : 'object';
}

/** Kubernetes' relative field paths: `.name`, `['key.with.dots']`, `[0]`. */
function parseFieldPath(text: string): PathPart[] | string {
  const parts: PathPart[] = [];
  const pattern = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/y;
  let at = 0;
  while (at < text.length) {
    pattern.lastIndex = at;
    const m = pattern.exec(text);
    if (!m) return `invalid field path at position ${at}`;
    if (m[1] !== undefined) parts.push({ field: m[1] });
    else if (m[2] !== undefined) parts.push({ key: m[2].replace(/\\(.)/g, '$1') });
    else parts.push({ index: Number(m[3]) });
    at = pattern.lastIndex;
  }
  return parts;
}

function appendPath(base: string, parts: readonly PathPart[]): string {
  let out = base;
  for (const p of parts) {
    if ('field' in p) out = out ? `${out}.${p.field}` : p.field;
    else if ('key' in p) out = `${out}[${p.key}]`;
    else out = `${out}[${p.index}]`;
  }
  return out;
}

interface CheckContext {
  errors: FieldError[];
  total: bigint;
  /** The rules that add at least 1% of the CRD's budget, most expensive first (at most four). */
  mostExpensive: Array<{ path: string; cost: bigint }>;
  /** The spelling of the marker in the CRD as written, for the paths of errors. */
  marker: string;
  /** An update that leaves the version's schema as it was: its rules are not held to the per-expression limit. */
  suppressPerExpressionCost: boolean;
}

/** The marker name a schema as written uses: Kubernetes' spelling when only that one appears. */
export function markerSpelling(schema: unknown): string {
  const text = JSON.stringify(schema) ?? '';
  return text.includes('"x-kubernetes-validations"') && !text.includes(`"${VALIDATIONS_MARKER}"`) ? 'x-kubernetes-validations' : VALIDATIONS_MARKER;
}

export interface RuleCheckOptions {
  /** The spelling of the marker in the CRD as written (`x-kubernetes-validations`), for error paths. */
  marker?: string;
  /** Skip the per-expression limit, as Kubernetes does on an update that leaves the version's schema unchanged. */
  suppressPerExpressionCost?: boolean;
}

/** One rule's estimate, as Kubernetes computes it when the CRD is written. */
export interface RuleCostEstimate {
  /** The path of the rule (`...x-kubernetes-validations[0].rule`). */
  path: string;
  rule: string;
  /** The estimated cost of one evaluation (cel-go's EstimateCost maximum). */
  cost: bigint;
  /** How many times it can run in one object: the product of its ancestors' maxItems/maxProperties, or what a request holds. */
  cardinality: bigint;
  /** cost × cardinality: what is held to the per-rule limit and added to the CRD's total. */
  expressionCost: bigint;
  /** The messageExpression's estimated cost, if the rule has one (not multiplied, as in Kubernetes). */
  messageExpressionCost?: bigint;
}

const ONE_PERCENT_OF_CRD_LIMIT = BigInt(STATIC_ESTIMATED_CRD_COST_LIMIT / 100);

function multiplyWithOverflowGuard(cost: bigint, cardinality: bigint): bigint {
  if (cost === 0n) return 0n;
  const product = cost * cardinality;
  return product > U64_MAX ? U64_MAX : product;
}

/**
 * The errors of a CRD version's rules, at `path` (`spec.versions[0].schema.openAPIV3Schema`): rules that
 * do not compile, unknown reasons, bad field paths, `oldSelf` where nothing correlates, and rules whose
 * estimated cost is over Kubernetes' per-rule budget or whose sum is over the budget of the schema.
 * `schema` is the version's openAPIV3Schema as written (markers spelled `x-svc-`).
 */
export function validationRuleErrors(schema: JsonSchema, path: string, options: RuleCheckOptions = {}): FieldError[] {
  return checkValidationRules(schema, path, options).errors;
}

/** The errors of validationRuleErrors, and each rule's estimated cost. */
export function checkValidationRules(schema: JsonSchema, path: string, options: RuleCheckOptions = {}): { errors: FieldError[]; costs: RuleCostEstimate[] } {
  const context: CheckContext = {
    errors: [],
    total: 0n,
    mostExpensive: [],
    marker: options.marker ?? VALIDATIONS_MARKER,
    suppressPerExpressionCost: options.suppressPerExpressionCost === true,
  };
  const costs: RuleCostEstimate[] = [];
  checkNode(schema, path, context, costs, { root: true, correlatable: true, cardinality: 1n, depth: 0 });
  if (context.total > BigInt(STATIC_ESTIMATED_CRD_COST_LIMIT)) {
    for (const expensive of context.mostExpensive) {
      context.errors.push(fieldForbidden(expensive.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'));
    }
    context.errors.push(
      fieldForbidden(
        path,
        costExceededMessage(`${context.marker} estimated rule cost total for entire OpenAPIv3 schema`, context.total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  return { errors: context.errors, costs };
}

function observeCost(context: CheckContext, path: string, cost: bigint): void {
  context.total = context.total + cost > U64_MAX ? U64_MAX : context.total + cost;
  if (cost < ONE_PERCENT_OF_CRD_LIMIT) return;
  context.mostExpensive.push({ path, cost });
  context.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
  if (context.mostExpensive.length > 4) context.mostExpensive.length = 4;
}

interface Position {
  root: boolean;
  correlatable: boolean;
  /** The product of the ancestors' maxItems/maxProperties; undefined where one of them is unbounded. */
  cardinality: bigint | undefined;
  depth: number;
}

/** The factor by which a node multiplies its children's cardinality (Kubernetes' extractMaxElements); undefined when unbounded. */
function maxElements(schema: JsonSchema): bigint | undefined {
  const bound = (n: unknown) => (typeof n === 'number' ? BigInt(Math.max(0, Math.floor(n))) : undefined);
  if (schema.type === 'object') return schema.additionalProperties !== undefined ? bound(schema.maxProperties) : 1n;
  if (schema.type === 'array') return bound(schema.maxItems);
  return 1n;
}

function checkNode(schema: unknown, path: string, context: CheckContext, costs: RuleCostEstimate[], at: Position): void {
  if (!isRecord(schema) || at.depth > 200) return;
  const node = schema as JsonSchema;
  const rules = rulesOf(node);
  if (rules.length > MAX_RULES_PER_NODE)
    context.errors.push(fieldInvalid(`${path}.${context.marker}`, rules.length, `must have at most ${MAX_RULES_PER_NODE} rules`));
  const declType = rules.length > 0 ? schemaDeclType(node, at.root || node['x-svc-embedded-resource'] === true) : undefined;
  rules.slice(0, MAX_RULES_PER_NODE).forEach((raw, i) => {
    const at2 = `${path}.${context.marker}[${i}]`;
    if (!isRecord(raw) || typeof raw.rule !== 'string') {
      context.errors.push(fieldRequired(`${at2}.rule`, ''));
      return;
    }
    if (declType === undefined) {
      // Kubernetes cannot type such a node (an array without items, a field without a type).
      if (i === 0) context.errors.push(fieldInternalError(`${path}.${context.marker}`, 'failed to convert to declType for CEL validation rules'));
      return;
    }
    const compiled = compileRule(raw as unknown as ValidationRuleSpec, at2, context.errors, declType);
    if (compiled === undefined) return;
    if (compiled.transition && !at.correlatable) {
      context.errors.push(fieldInvalid(`${at2}.rule`, raw.rule, 'oldSelf cannot be used on the uncorrelatable portion of the schema within ' + path));
    }
    const variables = { self: declType, oldSelf: compiled.spec.optionalOldSelf === true ? DECL.optional(declType) : declType };
    const sizes = declaredSizes(declType);
    const cost = estimateCost(compiled.program, variables, sizes);
    const cardinality = at.cardinality ?? BigInt(unboundedCardinality(declType));
    const expressionCost = multiplyWithOverflowGuard(cost, cardinality);
    if (!context.suppressPerExpressionCost && expressionCost > BigInt(STATIC_ESTIMATED_COST_LIMIT)) {
      context.errors.push(fieldForbidden(`${at2}.rule`, costExceededMessage('estimated rule cost', expressionCost, STATIC_ESTIMATED_COST_LIMIT)));
    }
    observeCost(context, `${at2}.rule`, expressionCost);
    const estimate: RuleCostEstimate = { path: `${at2}.rule`, rule: compiled.spec.rule, cost, cardinality, expressionCost };
    if (compiled.message) {
      const messageCost = estimateCost(compiled.message, variables, sizes);
      estimate.messageExpressionCost = messageCost;
      if (!context.suppressPerExpressionCost && messageCost > BigInt(STATIC_ESTIMATED_COST_LIMIT)) {
        context.errors.push(
          fieldForbidden(`${at2}.messageExpression`, costExceededMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT)),
        );
      }
      observeCost(context, `${at2}.messageExpression`, messageCost);
    }
    costs.push(estimate);
  });
  const factor = maxElements(node);
  const childCardinality = at.cardinality === undefined || factor === undefined ? undefined : multiplyWithOverflowGuard(at.cardinality, factor);
  const next: Position = { ...at, root: false, depth: at.depth + 1, cardinality: childCardinality };
  for (const [key, child] of Object.entries(node.properties ?? {})) checkNode(child, `${path}.properties[${key}]`, context, costs, next);
  if (isRecord(node.additionalProperties)) checkNode(node.additionalProperties, `${path}.additionalProperties`, context, costs, next);
  if (isRecord(node.items)) {
    const correlatable = at.correlatable && node['x-svc-list-type'] === 'map';
    checkNode(node.items, `${path}.items`, context, costs, { ...next, correlatable });
  }
}

/** A rule as Go's %#v prints Kubernetes' internal ValidationRule, the value of its field errors. */
function ruleValue(spec: ValidationRuleSpec): RenderedValue {
  const text = (v: unknown) => goQuote(typeof v === 'string' ? v : '');
  const pointer = (type: string, v: unknown) => (v === undefined ? `(*${type})(nil)` : `(*${type})(0xc000000000)`);
  return new RenderedValue(
    `apiextensions.ValidationRule{Rule:${text(spec.rule)}, Message:${text(spec.message)}, MessageExpression:${text(spec.messageExpression)}, ` +
      `Reason:${pointer('apiextensions.FieldValueErrorReason', spec.reason)}, FieldPath:${text(spec.fieldPath)}, OptionalOldSelf:${pointer('bool', spec.optionalOldSelf)}}`,
  );
}

/**
 * Compiles a rule as apiextensions-apiserver does: against `self` and `oldSelf` typed from the node's
 * schema, the rule a bool, its messageExpression a string; errors worded and placed as Kubernetes'.
 */
function compileRule(spec: ValidationRuleSpec, path: string, errors: FieldError[], declType: CelDeclType): CompiledRule | undefined {
  const declarations = ruleDeclarations(declType, spec.optionalOldSelf === true);
  let program: CelProgram;
  try {
    program = compileCel(spec.rule, declarations);
  } catch (error) {
    errors.push(fieldInvalid(`${path}.rule`, ruleValue(spec), (error as Error).message));
    return undefined;
  }
  if (program.outputType.kind !== 'bool') {
    errors.push(fieldInvalid(`${path}.rule`, ruleValue(spec), 'cel expression must evaluate to a bool'));
    return undefined;
  }
  let message: CelProgram | undefined;
  if (spec.messageExpression !== undefined && String(spec.messageExpression).trim() !== '') {
    try {
      message = compileCel(String(spec.messageExpression), declarations);
      if (message.outputType.kind !== 'string') {
        errors.push(fieldInvalid(`${path}.messageExpression`, ruleValue(spec), 'messageExpression must evaluate to a string'));
        message = undefined;
      }
    } catch (error) {
      errors.push(fieldInvalid(`${path}.messageExpression`, ruleValue(spec), `messageExpression ${(error as Error).message}`));
      message = undefined;
    }
  }
  if (!program.references.has('oldSelf') && spec.optionalOldSelf !== undefined) {
    errors.push(fieldInvalid(`${path}.optionalOldSelf`, spec.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
  }
  if (spec.message !== undefined && (typeof spec.message !== 'string' || spec.message.trim() === '' || spec.message.includes('\n'))) {
    errors.push(fieldInvalid(`${path}.message`, spec.message, 'message must be a non-empty single line'));
  }
  if (spec.reason !== undefined && !REASONS.includes(spec.reason)) errors.push(fieldNotSupported(`${path}.reason`, spec.reason, REASONS));
  let fieldPath: PathPart[] = [];
  if (spec.fieldPath !== undefined) {
    const parsed = typeof spec.fieldPath === 'string' ? parseFieldPath(spec.fieldPath) : 'must be a string';
    if (typeof parsed === 'string') errors.push(fieldInvalid(`${path}.fieldPath`, spec.fieldPath, parsed));
    else fieldPath = parsed;
  }
  const transition = program.references.has('oldSelf') || message?.references.has('oldSelf') === true;
  return { spec, program, message, transition, fieldPath };
}

function buildNode(schema: JsonSchema, depth: number, root = depth === 0): RuleNode | undefined {
  if (depth > 200) return undefined;
  const rules: CompiledRule[] = [];
  for (const raw of rulesOf(schema).slice(0, MAX_RULES_PER_NODE)) {
    if (!isRecord(raw) || typeof raw.rule !== 'string') continue;
    const ignored: FieldError[] = [];
    const declType = schemaDeclType(schema, root || schema['x-svc-embedded-resource'] === true);
    if (declType === undefined) continue;
    const compiled = compileRule(raw as unknown as ValidationRuleSpec, '', ignored, declType);
    if (compiled) rules.push(compiled);
  }
  const properties = new Map<string, RuleNode>();
  for (const [key, child] of Object.entries(schema.properties ?? {})) {
    const built = buildNode(child, depth + 1);
    if (built) properties.set(key, built);
  }
  const items = isRecord(schema.items) ? buildNode(schema.items, depth + 1) : undefined;
  const additional = isRecord(schema.additionalProperties) ? buildNode(schema.additionalProperties, depth + 1) : undefined;
  if (rules.length === 0 && properties.size === 0 && !items && !additional) return undefined;
  const mapKeys = schema['x-svc-list-type'] === 'map' && Array.isArray(schema['x-svc-list-map-keys']) ? schema['x-svc-list-map-keys'] : undefined;
  return { schemaType: schemaTypeName(schema), rules, properties, items, additional, mapKeys, schema };
}

/** JSON as CEL sees it under a schema: integers as CEL ints, everything else as it is. */
function toCel(value: unknown, schema: JsonSchema | undefined, depth = 0): unknown {
  if (depth > 200) return value;
  if (typeof value === 'number') {
    if (schema?.type === 'number') return value;
    return Number.isInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === 'string' && schema?.type === 'string' && typeof schema.format === 'string') {
    return celValueOfFormat(schema.format, value) ?? value;
  }
  if (Array.isArray(value)) {
    const items = schema && isRecord(schema.items) ? schema.items : undefined;
    return value.map((v) => toCel(v, items, depth + 1));
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    const additional = schema && isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined;
    for (const [k, v] of Object.entries(value)) {
      const property = schema?.properties?.[k];
      out[k] = toCel(v, property ?? additional, depth + 1);
      // A declared property is read by its escaped name (`self.foo__dash__bar`, `self.__namespace__`) as well.
      const escaped = property !== undefined ? escapeCelName(k) : undefined;
      if (escaped !== undefined && escaped !== k) out[escaped] = out[k];
    }
    return out;
  }
  return value;
}

function typeMatches(schema: JsonSchema, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  switch (schema.type) {
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

interface RunContext {
  errors: FieldError[];
  remaining: number;
  exhausted: boolean;
  /** 'create': rules without oldSelf; 'transition': only rules with oldSelf, where an old value correlates. */
  mode: 'create' | 'transition';
}

/** The compiled rules of one custom resource version. */
export class ValidationRuleSet {
  private constructor(private readonly root: RuleNode) {}

  /** The rules of `schema` (the whole object's schema); undefined when it has none. */
  static of(schema: JsonSchema): ValidationRuleSet | undefined {
    const root = buildNode(schema, 0);
    return root ? new ValidationRuleSet(root) : undefined;
  }

  /** Every rule that does not read oldSelf, against `object`. */
  validate(object: unknown): FieldError[] {
    const context: RunContext = { errors: [], remaining: RUNTIME_COST_BUDGET, exhausted: false, mode: 'create' };
    this.walk(this.root, rootValue(object), undefined, false, '', context, 0);
    return context.errors;
  }

  /** The transition rules, each where the stored object has a value to compare with. */
  validateTransition(object: unknown, old: unknown): FieldError[] {
    const context: RunContext = { errors: [], remaining: RUNTIME_COST_BUDGET, exhausted: false, mode: 'transition' };
    this.walk(this.root, rootValue(object), rootValue(old), true, '', context, 0);
    return context.errors;
  }

  private walk(node: RuleNode, value: unknown, old: unknown, hasOld: boolean, path: string, context: RunContext, depth: number): void {
    if (context.exhausted || depth > 200 || !typeMatches(node.schema, value)) return;
    if (node.rules.length > 0) this.evaluate(node, value, old, hasOld && typeMatches(node.schema, old), path, context);
    if (isRecord(value)) {
      const oldRecord = hasOld && isRecord(old) ? old : undefined;
      for (const [key, child] of node.properties) {
        if (value[key] === undefined) continue;
        const has = oldRecord !== undefined && Object.prototype.hasOwnProperty.call(oldRecord, key);
        this.walk(child, value[key], has ? oldRecord[key] : undefined, has, path ? `${path}.${key}` : key, context, depth + 1);
      }
      if (node.additional) {
        for (const [key, child] of Object.entries(value)) {
          const has = oldRecord !== undefined && Object.prototype.hasOwnProperty.call(oldRecord, key);
          this.walk(node.additional, child, has ? oldRecord[key] : undefined, has, `${path}[${key}]`, context, depth + 1);
          if (context.exhausted) return;
        }
      }
    } else if (Array.isArray(value) && node.items) {
      const oldByKey = hasOld && Array.isArray(old) && node.mapKeys ? indexByKeys(old, node.mapKeys) : undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const key = oldByKey && isRecord(item) ? keyOf(item, node.mapKeys!) : undefined;
        const has = key !== undefined && oldByKey!.has(key);
        this.walk(node.items, item, has ? oldByKey!.get(key) : undefined, has, `${path}[${i}]`, context, depth + 1);
        if (context.exhausted) return;
      }
    }
  }

  private evaluate(node: RuleNode, value: unknown, old: unknown, hasOld: boolean, at: string, context: RunContext): void {
    // Kubernetes validates the root with a nil field path, which its errors print as `<nil>`.
    const path = at === '' ? '<nil>' : at;
    let self: unknown;
    let oldSelf: unknown;
    for (const rule of node.rules) {
      if (context.mode === 'create' ? rule.transition : !rule.transition || !hasOld) continue;
      self ??= toCel(value, node.schema);
      if (hasOld) oldSelf ??= toCel(old, node.schema);
      const bindings = hasOld ? { self, oldSelf } : { self };
      // As Kubernetes: each evaluation is stopped past the per-call limit, and what it actually cost
      // (only what ran: && and || short-circuit) is charged to the object's budget.
      const outcome = rule.program.evaluateWithCost(bindings, PER_CALL_COST_LIMIT);
      if (outcome.cost > context.remaining) {
        context.errors.push(
          fieldInvalid(path, node.schemaType, 'validation failed due to running out of cost budget, no further validation rules will be run'),
        );
        context.exhausted = true;
        return;
      }
      context.remaining -= outcome.cost;
      if (!outcome.ok) {
        if (outcome.limitExceeded) {
          context.errors.push(
            fieldInvalid(
              path,
              node.schemaType,
              `'${outcome.error}': no further validation rules will be run due to call cost exceeds limit for rule: ${rule.spec.rule}`,
            ),
          );
          context.exhausted = true;
          return;
        }
        context.errors.push(fieldInvalid(path, node.schemaType, `${outcome.error} evaluating rule: ${rule.spec.rule}`));
        continue;
      }
      if (outcome.value === true) continue;
      if (outcome.value !== false) {
        context.errors.push(fieldInvalid(path, node.schemaType, `rule did not evaluate to a bool: ${rule.spec.rule}`));
        continue;
      }
      const target = rule.fieldPath.length > 0 ? appendPath(at, rule.fieldPath) : path;
      context.errors.push(errorFor(rule, target, node.schemaType, messageOf(rule, bindings, context)));
    }
  }
}

function messageOf(rule: CompiledRule, bindings: Record<string, unknown>, context: RunContext): string {
  if (rule.message) {
    const outcome = rule.message.evaluateWithCost(bindings, Math.min(PER_CALL_COST_LIMIT, Math.max(0, context.remaining)));
    context.remaining -= Math.min(outcome.cost, context.remaining);
    if (outcome.ok && typeof outcome.value === 'string' && outcome.value.trim() !== '' && !outcome.value.includes('\n')) {
      return outcome.value.length > MAX_MESSAGE_LENGTH ? outcome.value.slice(0, MAX_MESSAGE_LENGTH) : outcome.value;
    }
  }
  if (rule.spec.message) return rule.spec.message;
  return `failed rule: ${rule.spec.rule}`;
}

function errorFor(rule: CompiledRule, path: string, type: string, message: string): FieldError {
  switch (rule.spec.reason) {
    case 'FieldValueForbidden':
      return fieldForbidden(path, message);
    case 'FieldValueRequired':
      return fieldRequired(path, message);
    case 'FieldValueDuplicate':
      return fieldDuplicate(path, type);
    default:
      return fieldInvalid(path, type, message);
  }
}

/** The object as root rules see it: metadata holds only name and generateName. */
function rootValue(object: unknown): unknown {
  if (!isRecord(object)) return object;
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const visible: Record<string, unknown> = {};
  if (metadata.name !== undefined) visible.name = metadata.name;
  if (metadata.generateName !== undefined) visible.generateName = metadata.generateName;
  return { ...object, metadata: visible };
}

function keyOf(item: Record<string, unknown>, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => item[k] ?? null));
}

function indexByKeys(list: unknown[], keys: readonly string[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of list) if (isRecord(item)) out.set(keyOf(item, keys), item);
  return out;
}
