import Ajv, { type ErrorObject, type Options } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import { RE2JS } from 're2js';
import { BUILTIN_PATTERNS } from '../meta/names';
import addFormats from 'ajv-formats';
import { goBase64ErrorOffset } from './go-base64';
import { SVC_KEYWORDS, type JsonSchema } from './json-schema';
import { SharedSubschemas } from './shared-subschemas';

/**
 * Two ajv instances: one validates, one only applies `default` keywords (ajv's useDefaults).
 * Both accept any OpenAPI v3 schema a CRD may carry, so strict mode is off; the vendor
 * keywords are still declared so that their values are checked when a schema is validated.
 */

const MARKER_SCHEMAS: Record<(typeof SVC_KEYWORDS)[number], object> = {
  'x-svc-list-type': { type: 'string', enum: ['atomic', 'set', 'map'] },
  'x-svc-list-map-keys': { type: 'array', items: { type: 'string' } },
  'x-svc-map-type': { type: 'string', enum: ['atomic', 'granular'] },
  'x-svc-patch-merge-key': { type: 'string' },
  'x-svc-patch-strategy': { type: 'string' },
  'x-svc-int-or-string': { type: 'boolean' },
  'x-svc-preserve-unknown-fields': { type: 'boolean' },
  'x-svc-embedded-resource': { type: 'boolean' },
  'x-svc-group-version-kind': {},
  'x-svc-unique-map-keys': { type: 'array', items: { type: 'string' } },
};

/** Formats Kubernetes accepts in CRD schemas that ajv-formats does not define; unknown ones pass. */
const EXTRA_FORMATS: Record<string, RegExp | true | ((value: string) => boolean)> = {
  'int-or-string': true,
  bsonobjectid: /^[0-9a-f]{24}$/,
  cidr: /^[0-9a-fA-F.:]+\/[0-9]{1,3}$/,
  mac: /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/,
  uuid3: /^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  uuid4: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i,
  uuid5: /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i,
  isbn: true,
  isbn10: true,
  isbn13: true,
  creditcard: true,
  ssn: /^\d{3}[- ]?\d{2}[- ]?\d{4}$/,
  hexcolor: /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/,
  rgbcolor: /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/,
  datetime: true,
  quantity: true,
  // What Go's base64 decoder takes (line breaks anywhere, padding required), not ajv-formats' line-wise test.
  byte: (value) => goBase64ErrorOffset(value) === undefined,
};

function configure(ajv: Ajv): Ajv {
  addFormats(ajv);
  for (const [name, format] of Object.entries(EXTRA_FORMATS)) ajv.addFormat(name, format);
  for (const keyword of SVC_KEYWORDS) {
    if (keyword === 'x-svc-int-or-string' || keyword === 'x-svc-unique-map-keys') continue;
    ajv.addKeyword({ keyword, metaSchema: MARKER_SCHEMAS[keyword] });
  }
  ajv.addKeyword({
    keyword: 'x-svc-int-or-string',
    schemaType: 'boolean',
    metaSchema: MARKER_SCHEMAS['x-svc-int-or-string'],
    errors: false,
    validate: (enabled: boolean, data: unknown, parent?: { nullable?: boolean }) =>
      !enabled || typeof data === 'string' || (typeof data === 'number' && Number.isInteger(data)) || (data === null && parent?.nullable === true),
  });
  ajv.addKeyword({
    keyword: 'x-svc-unique-map-keys',
    type: 'array',
    schemaType: 'array',
    metaSchema: MARKER_SCHEMAS['x-svc-unique-map-keys'],
    errors: true,
    validate: uniqueMapKeys,
  });
  return ajv;
}

interface KeywordValidate {
  (keys: string[], data: unknown[]): boolean;
  errors?: Partial<ErrorObject>[];
}

/** Reports the first later item whose map keys repeat an earlier item's, as `uniqueItems` does (params i, j). */
const uniqueMapKeys: KeywordValidate = (keys, data) => {
  const seen = new Map<string, number>();
  for (let j = 0; j < data.length; j++) {
    const item = data[j];
    if (!item || typeof item !== 'object') continue;
    const id = JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k] ?? null));
    const i = seen.get(id);
    if (i !== undefined) {
      uniqueMapKeys.errors = [{ keyword: 'x-svc-unique-map-keys', message: 'duplicate map keys', params: { i, j, keys } }];
      return false;
    }
    seen.set(id, j);
  }
  return true;
};

/**
 * Schema `pattern`s are matched by RE2, as Kubernetes matches them (Go's regexp): in linear time, so
 * that a pattern from a CRD such as `^(a+)+$` cannot hold the server on a long value, and with RE2's
 * syntax (a pattern RE2 refuses, a lookahead say, makes a CRD's schema fail to compile). The
 * project's own patterns (object metadata, names), which use lookaheads for lengths, keep
 * JavaScript's engine; every CRD schema embeds them for its metadata.
 */
const patterns: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    if (BUILTIN_PATTERNS.has(pattern)) return new RegExp(pattern, flags);
    const compiled = RE2JS.compile(pattern);
    // ajv keys its cache of compiled patterns by toString().
    return { test: (value: string) => compiled.test(value), toString: () => `re2:${pattern}` };
  },
  { code: 'require("re2js").RE2JS.compile' },
);

const common: Options = {
  strict: false,
  allErrors: true,
  validateSchema: false,
  logger: false,
  // Error locations are computed from instancePath; schema paths are enough for branch collapsing.
  messages: true,
  // Each error carries the node that failed, whose other constraints decide the words (a name's
  // pattern names the Kubernetes validator whose messages a too long name gets).
  verbose: true,
  // Shared subschemas are compiled once and called, not copied into every validator.
  inlineRefs: false,
  code: { regExp: patterns },
};

export interface SchemaCompiler {
  ajv: Ajv;
  shared: SharedSubschemas;
}

let validator: SchemaCompiler | undefined;
let defaulter: SchemaCompiler | undefined;

function compiler(options: Options): SchemaCompiler {
  const ajv = configure(new Ajv({ ...common, ...options }));
  return { ajv, shared: new SharedSubschemas(ajv) };
}

export function sharedValidator(): SchemaCompiler {
  validator ??= compiler({ useDefaults: false });
  return validator;
}

export function sharedDefaulter(): SchemaCompiler {
  defaulter ??= compiler({ useDefaults: true, validateFormats: false });
  return defaulter;
}

/**
 * Compiles a whole-object schema. The root is forgotten afterwards: ajv's cache holds compiled
 * schemas by identity, which would keep every replaced CRD schema alive, and the compiled
 * function does not need the entry. Shared subschemas stay registered for the next kind.
 */
export function compileOnce(compiler: SchemaCompiler, schema: JsonSchema): ReturnType<Ajv['compile']> {
  const prepared = compiler.shared.prepare(schema) as object;
  try {
    return compiler.ajv.compile(prepared);
  } finally {
    compiler.ajv.removeSchema(prepared);
  }
}
