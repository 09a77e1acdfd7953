import { fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '@svc/machinery';
import type { JsonSchema } from '../schema/json-schema';
import { compileCel, type CelProgram } from './cel-environment';
import {
  costExceededMessage,
  estimateCost,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  shapeOfValue,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  unboundedSize,
  type CelShape,
} from './cel-cost';

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
const VARIABLES = ['self', 'oldSelf'];
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/** The estimator's view of a schema node: its bounds, or what one request can hold where none is stated. */
export function shapeOfSchema(schema: JsonSchema, depth = 0): CelShape {
  if (depth > 100 || schema['x-svc-int-or-string'] === true) return { type: 'dyn', maxSize: unboundedSize('string') };
  switch (schema.type) {
    case 'string':
      return { type: 'string', maxSize: typeof schema.maxLength === 'number' ? schema.maxLength : unboundedSize('integer') };
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: schema.type, maxSize: 1 };
    case 'array': {
      const items = isRecord(schema.items) ? shapeOfSchema(schema.items, depth + 1) : { type: 'dyn' as const, maxSize: unboundedSize('integer') };
      return { type: 'list', maxSize: typeof schema.maxItems === 'number' ? schema.maxItems : unboundedSize(items.type), items };
    }
    default: {
      if (isRecord(schema.additionalProperties)) {
        const items = shapeOfSchema(schema.additionalProperties, depth + 1);
        return { type: 'map', maxSize: typeof schema.maxProperties === 'number' ? schema.maxProperties : unboundedSize(items.type), items };
      }
      if (schema.properties === undefined && schema['x-svc-preserve-unknown-fields'] === true) return { type: 'dyn', maxSize: unboundedSize('integer') };
      const properties: Record<string, CelShape> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) properties[k] = shapeOfSchema(v, depth + 1);
      return { type: 'object', maxSize: Object.keys(properties).length, properties };
    }
  }
}

/** The metadata a root rule sees, as in Kubernetes: only name and generateName. */
function rootShape(schema: JsonSchema): CelShape {
  const shape = shapeOfSchema(schema);
  if (shape.type === 'object') {
    const name: CelShape = { type: 'string', maxSize: 253 };
    shape.properties = { ...shape.properties, metadata: { type: 'object', maxSize: 2, properties: { name, generateName: name } } };
  }
  return shape;
}

interface CheckContext {
  errors: FieldError[];
  total: number;
  totalPath: string;
  /** The spelling of the marker in the CRD as written, for the paths of errors. */
  marker: string;
}

/** The marker name a schema as written uses: Kubernetes' spelling when only that one appears. */
export function markerSpelling(schema: unknown): string {
  const text = JSON.stringify(schema) ?? '';
  return text.includes('"x-kubernetes-validations"') && !text.includes(`"${VALIDATIONS_MARKER}"`) ? 'x-kubernetes-validations' : VALIDATIONS_MARKER;
}

/**
 * The errors of a CRD version's rules, at `path` (`spec.versions[0].schema.openAPIV3Schema`): rules that
 * do not compile, unknown reasons, bad field paths, `oldSelf` where nothing correlates, and rules whose
 * estimated cost is over Kubernetes' per-rule budget or whose sum is over the budget of the schema.
 */
export function validationRuleErrors(schema: JsonSchema, path: string, marker: string = VALIDATIONS_MARKER): FieldError[] {
  const context: CheckContext = { errors: [], total: 0, totalPath: path, marker };
  checkNode(schema, path, context, { root: true, correlatable: true, cardinality: 1, depth: 0 });
  if (context.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    context.errors.push(
      fieldForbidden(
        path,
        costExceededMessage(`${context.marker} estimated rule cost total for entire OpenAPIv3 schema`, context.total, STATIC_ESTIMATED_CRD_COST_LIMIT),
      ),
    );
  }
  return context.errors;
}

interface Position {
  root: boolean;
  correlatable: boolean;
  cardinality: number;
  depth: number;
}

function checkNode(schema: unknown, path: string, context: CheckContext, at: Position): void {
  if (!isRecord(schema) || at.depth > 200) return;
  const node = schema as JsonSchema;
  const rules = rulesOf(node);
  if (rules.length > MAX_RULES_PER_NODE)
    context.errors.push(fieldInvalid(`${path}.${context.marker}`, rules.length, `must have at most ${MAX_RULES_PER_NODE} rules`));
  const shape = at.root ? rootShape(node) : shapeOfSchema(node);
  rules.slice(0, MAX_RULES_PER_NODE).forEach((raw, i) => {
    const at2 = `${path}.${context.marker}[${i}]`;
    if (!isRecord(raw) || typeof raw.rule !== 'string') {
      context.errors.push(fieldRequired(`${at2}.rule`, ''));
      return;
    }
    const compiled = compileRule(raw as unknown as ValidationRuleSpec, at2, context.errors);
    if (compiled === undefined) return;
    if (compiled.transition && !at.correlatable) {
      context.errors.push(fieldInvalid(`${at2}.rule`, raw.rule, 'oldSelf cannot be used on the uncorrelatable portion of the schema within ' + path));
    }
    const cost = estimateCost(compiled.program, { self: shape, oldSelf: shape });
    if (cost > STATIC_ESTIMATED_COST_LIMIT) {
      context.errors.push(fieldForbidden(`${at2}.rule`, costExceededMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT)));
    }
    let total = cost;
    if (compiled.message) {
      const messageCost = estimateCost(compiled.message, { self: shape, oldSelf: shape });
      if (messageCost > STATIC_ESTIMATED_COST_LIMIT) {
        context.errors.push(
          fieldForbidden(`${at2}.messageExpression`, costExceededMessage('estimated messageExpression cost', messageCost, STATIC_ESTIMATED_COST_LIMIT)),
        );
      }
      total += messageCost;
    }
    const before = context.total;
    context.total += total * at.cardinality;
    if (before <= STATIC_ESTIMATED_CRD_COST_LIMIT && context.total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
      context.errors.push(
        fieldForbidden(`${at2}.rule`, 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema'),
      );
    }
  });
  const next = { ...at, root: false, depth: at.depth + 1 };
  for (const [key, child] of Object.entries(node.properties ?? {})) checkNode(child, `${path}.properties[${key}]`, context, next);
  if (isRecord(node.additionalProperties)) {
    const size = shapeOfSchema(node).maxSize;
    checkNode(node.additionalProperties, `${path}.additionalProperties`, context, { ...next, cardinality: at.cardinality * size });
  }
  if (isRecord(node.items)) {
    const size = shapeOfSchema(node).maxSize;
    const correlatable = at.correlatable && node['x-svc-list-type'] === 'map';
    checkNode(node.items, `${path}.items`, context, { ...next, correlatable, cardinality: at.cardinality * size });
  }
}

function compileRule(spec: ValidationRuleSpec, path: string, errors: FieldError[]): CompiledRule | undefined {
  let program: CelProgram;
  try {
    program = compileCel(spec.rule, VARIABLES);
  } catch (error) {
    errors.push(fieldInvalid(`${path}.rule`, spec.rule, (error as Error).message));
    return undefined;
  }
  let message: CelProgram | undefined;
  if (spec.messageExpression !== undefined) {
    try {
      message = compileCel(String(spec.messageExpression), VARIABLES);
    } catch (error) {
      errors.push(fieldInvalid(`${path}.messageExpression`, spec.messageExpression, `messageExpression ${(error as Error).message}`));
      return undefined;
    }
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

function buildNode(schema: JsonSchema, depth: number): RuleNode | undefined {
  if (depth > 200) return undefined;
  const rules: CompiledRule[] = [];
  for (const raw of rulesOf(schema).slice(0, MAX_RULES_PER_NODE)) {
    if (!isRecord(raw) || typeof raw.rule !== 'string') continue;
    const ignored: FieldError[] = [];
    const compiled = compileRule(raw as unknown as ValidationRuleSpec, '', ignored);
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
  if (Array.isArray(value)) {
    const items = schema && isRecord(schema.items) ? schema.items : undefined;
    return value.map((v) => toCel(v, items, depth + 1));
  }
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    const additional = schema && isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined;
    for (const [k, v] of Object.entries(value)) out[k] = toCel(v, schema?.properties?.[k] ?? additional, depth + 1);
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

  private evaluate(node: RuleNode, value: unknown, old: unknown, hasOld: boolean, path: string, context: RunContext): void {
    let self: unknown;
    let oldSelf: unknown;
    let shapes: Record<string, CelShape> | undefined;
    for (const rule of node.rules) {
      if (context.mode === 'create' ? rule.transition : !rule.transition || !hasOld) continue;
      self ??= toCel(value, node.schema);
      if (hasOld) oldSelf ??= toCel(old, node.schema);
      shapes ??= { self: shapeOfValue(value), oldSelf: hasOld ? shapeOfValue(old) : shapeOfValue(undefined) };
      const bindings = hasOld ? { self, oldSelf } : { self };
      // A bound from the actual sizes: a rule whose bound is over the per-call limit is not run at all.
      const bound = estimateCost(rule.program, shapes) + (rule.message ? estimateCost(rule.message, shapes) : 0);
      if (bound > PER_CALL_COST_LIMIT) {
        context.errors.push(fieldInvalid(path, node.schemaType, `call cost exceeds limit for rule: ${rule.spec.rule}`));
        continue;
      }
      context.remaining -= bound;
      if (context.remaining < 0) {
        context.errors.push(
          fieldInvalid(path, node.schemaType, 'validation failed due to running out of cost budget, no further validation rules will be run'),
        );
        context.exhausted = true;
        return;
      }
      const outcome = rule.program.evaluate(bindings);
      if (!outcome.ok) {
        context.errors.push(fieldInvalid(path, node.schemaType, `${outcome.error} evaluating rule: ${rule.spec.rule}`));
        continue;
      }
      if (outcome.value === true) continue;
      if (outcome.value !== false) {
        context.errors.push(fieldInvalid(path, node.schemaType, `rule did not evaluate to a bool: ${rule.spec.rule}`));
        continue;
      }
      const at = appendPath(path, rule.fieldPath);
      context.errors.push(errorFor(rule, at, node.schemaType, messageOf(rule, bindings)));
    }
  }
}

function messageOf(rule: CompiledRule, bindings: Record<string, unknown>): string {
  if (rule.message) {
    const outcome = rule.message.evaluate(bindings);
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
