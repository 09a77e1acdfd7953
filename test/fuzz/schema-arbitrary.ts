import fc from 'fast-check';
import type { JsonSchema } from './fuzz-model';

/** How deep generated objects go before optional fields are left out (recursive schemas stop here). */
const MAX_DEPTH = 6;

const SIMPLE_STRINGS = ['a', 'fz', 'x-1', 'app', 'abc.def', 'registry.example/app:1.0', '', 'TCP', '10.0.0.1', 'Always'];

/**
 * Values that follow a kind's OpenAPI schema (v3, as the server publishes it): objects with their
 * required fields and some optional ones, enums, patterns where fast-check can follow them, int-or-
 * string, preserved unknown fields. Such bodies get past decoding and schema checks into defaulting,
 * validation and storage, where random JSON never arrives. Arbitraries are built lazily and memoised
 * per (schema node, depth), so recursive schemas (a CRD's JSONSchemaProps) cost nothing up front.
 */
export class SchemaArbitraries {
  private readonly memo = new Map<JsonSchema, Array<fc.Arbitrary<unknown>>>();

  constructor(private readonly components: Record<string, JsonSchema>) {}

  of(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const node = this.deref(schema);
    let byDepth = this.memo.get(node);
    if (byDepth === undefined) {
      byDepth = [];
      this.memo.set(node, byDepth);
    }
    let arb = byDepth[depth];
    if (arb === undefined) {
      // Built on first use: a recursive schema refers to itself one level down.
      arb = fc.constant(null).chain(() => this.build(node, depth));
      byDepth[depth] = arb;
    }
    return arb;
  }

  private deref(schema: JsonSchema): JsonSchema {
    let node = schema;
    for (let i = 0; i < 10; i++) {
      const ref = node.$ref as string | undefined;
      const allOf = node.allOf as JsonSchema[] | undefined;
      if (ref !== undefined) {
        const target = this.components[ref.replace('#/components/schemas/', '')];
        if (target === undefined) return {};
        node = target;
      } else if (allOf !== undefined && allOf.length === 1 && node.properties === undefined) {
        node = allOf[0];
      } else {
        return node;
      }
    }
    return node;
  }

  private build(node: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    if (Array.isArray(node.enum) && node.enum.length > 0) return fc.constantFrom(...(node.enum as unknown[]));
    if (node['x-kubernetes-int-or-string'] === true || node['x-svc-int-or-string'] === true) {
      return fc.oneof(fc.integer({ min: 0, max: 65535 }), fc.constantFrom('http', '25%', '8080', 'web'));
    }
    const properties = node.properties as Record<string, JsonSchema> | undefined;
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true || node['x-svc-preserve-unknown-fields'] === true;
    if (preserve && properties === undefined) return fc.jsonValue({ maxDepth: 3 });
    const type = node.type as string | undefined;
    if (type === 'object' || properties !== undefined) return this.object(node, properties, depth);
    switch (type) {
      case 'array': {
        if (depth >= MAX_DEPTH) return fc.constant([]);
        const items = (node.items as JsonSchema | undefined) ?? {};
        const maxItems = typeof node.maxItems === 'number' ? Math.min(node.maxItems, 3) : 3;
        return fc.array(this.of(items, depth + 1), {
          minLength: typeof node.minItems === 'number' ? Math.min(node.minItems, maxItems) : 0,
          maxLength: maxItems,
        });
      }
      case 'string':
        return this.string(node);
      case 'integer':
        return this.integer(node);
      case 'number':
        return fc.oneof(this.integer(node), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }));
      case 'boolean':
        return fc.boolean();
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private object(node: JsonSchema, properties: Record<string, JsonSchema> | undefined, depth: number): fc.Arbitrary<unknown> {
    const required = new Set((node.required as string[] | undefined) ?? []);
    const additional = node.additionalProperties as JsonSchema | boolean | undefined;
    if (properties === undefined || Object.keys(properties).length === 0) {
      if (additional === undefined || additional === false || depth >= MAX_DEPTH) return fc.constant({});
      const keyPattern = (node.propertyNames as JsonSchema | undefined)?.pattern;
      const keys = typeof keyPattern === 'string' ? this.matching(keyPattern, 20) : fc.constantFrom(...SIMPLE_STRINGS.filter((s) => s !== ''));
      const values = additional === true ? fc.jsonValue({ maxDepth: 2 }) : this.of(additional, depth + 1);
      return fc.dictionary(keys, values, { maxKeys: 3 });
    }
    // Past the depth limit only required fields are kept, so recursion ends.
    const kept = Object.entries(properties).filter(([name]) => depth < MAX_DEPTH || required.has(name));
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, schema] of kept) shape[name] = this.of(schema, depth + 1);
    return fc.record(shape, { requiredKeys: kept.map(([name]) => name).filter((name) => required.has(name)) });
  }

  private string(node: JsonSchema): fc.Arbitrary<string> {
    const maxLength = typeof node.maxLength === 'number' ? Math.min(node.maxLength, 40) : 40;
    switch (node.format) {
      case 'date-time':
        return fc
          .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));
      case 'byte':
        return fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes).toString('base64'));
      default:
        break;
    }
    if (typeof node.pattern === 'string') return this.matching(node.pattern, maxLength);
    return fc.oneof(fc.constantFrom(...SIMPLE_STRINGS), fc.string({ maxLength }));
  }

  private matching(pattern: string, maxLength: number): fc.Arbitrary<string> {
    try {
      return fc.stringMatching(new RegExp(pattern), { size: 'xsmall' }).filter((s) => s.length <= maxLength);
    } catch {
      // fast-check cannot follow every pattern (lookaheads): names that pass most of them do.
      return fc.constantFrom('a', 'fz', 'x-1', 'abc.def', 'fz.example.com/key');
    }
  }

  private integer(node: JsonSchema): fc.Arbitrary<number> {
    const int32 = node.format === 'int32';
    const min = typeof node.minimum === 'number' ? node.minimum : int32 ? -(2 ** 31) : Number.MIN_SAFE_INTEGER;
    const max = typeof node.maximum === 'number' ? node.maximum : int32 ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
    const low = Math.max(min, 0);
    // Mostly small values (the ones validation accepts), sometimes the bounds.
    return fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: Math.min(low, max), max: Math.min(Math.max(low, min) + 100, max) }) },
      { weight: 1, arbitrary: fc.constantFrom(min, max) },
    );
  }
}
