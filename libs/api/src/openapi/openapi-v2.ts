import { createHash } from 'node:crypto';
import type { JsonSchema } from '../schema/json-schema';
import type { OpenApiDocument } from './openapi-document';
import { INT_OR_STRING_SCHEMA_NAME, QUANTITY_SCHEMA_NAME } from './openapi-names';
import { isRecord } from '@svc/machinery';

/**
 * The Swagger 2.0 document Kubernetes serves at `/openapi/v2`: every group version in one document,
 * made here from the OpenAPI v3 documents, so both always say the same. Swagger 2.0 has no `oneOf`,
 * `anyOf` or `nullable`: Quantity is a string, IntOrString a string of format `int-or-string`, and a
 * reference takes its field's description beside it (`allOf` wrappers are undone), as in Kubernetes.
 */

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, Record<string, unknown>>;
  definitions: Record<string, JsonSchema>;
  securityDefinitions: Record<string, Record<string, string>>;
  security: Array<Record<string, string[]>>;
}

const V3_REF = '#/components/schemas/';
const DROPPED = new Set(['oneOf', 'anyOf', 'not', 'nullable']);

function schemaV2(node: unknown): JsonSchema {
  if (!isRecord(node)) return {};
  const out: Record<string, unknown> = {};
  // `allOf: [{$ref}]` beside the field's keywords is how OpenAPI 3.0 carries them; Swagger 2.0 puts them beside the $ref.
  const allOf = node.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isRecord(allOf[0]) && typeof allOf[0].$ref === 'string') {
    out.$ref = allOf[0].$ref.replace(V3_REF, '#/definitions/');
  }
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || (key === 'allOf' && out.$ref !== undefined)) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(V3_REF, '#/definitions/');
    else if (key === 'properties' && isRecord(value)) out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaV2(v)]));
    else if ((key === 'items' || key === 'additionalProperties') && isRecord(value)) out[key] = schemaV2(value);
    else if (key === 'allOf' && Array.isArray(value)) out.allOf = value.map(schemaV2);
    else out[key] = value;
  }
  return out;
}

function definitionV2(name: string, schema: JsonSchema): JsonSchema {
  if (name === QUANTITY_SCHEMA_NAME) return { description: schema.description, type: 'string' };
  if (name === INT_OR_STRING_SCHEMA_NAME) return { description: schema.description, type: 'string', format: 'int-or-string' };
  return schemaV2(schema);
}

interface V3Parameter {
  name: string;
  in: string;
  description?: string;
  required?: boolean;
  schema?: Record<string, unknown>;
}

function parameterV2(p: V3Parameter): Record<string, unknown> {
  return {
    ...(p.description !== undefined ? { description: p.description } : {}),
    in: p.in,
    name: p.name,
    ...(p.required ? { required: true } : {}),
    ...(p.schema ?? {}),
  };
}

function contentTypes(content: unknown): string[] {
  return isRecord(content) ? Object.keys(content) : [];
}

function firstSchema(content: unknown): JsonSchema | undefined {
  if (!isRecord(content)) return undefined;
  const first = Object.values(content)[0];
  return isRecord(first) && isRecord(first.schema) ? schemaV2(first.schema) : undefined;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function operationV2(op: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const parameters: Array<Record<string, unknown>> = [];
  const body = op.requestBody;
  if (isRecord(body)) {
    parameters.push({ in: 'body', name: 'body', ...(body.required ? { required: true } : {}), schema: firstSchema(body.content) ?? {} });
  }
  for (const p of (op.parameters as V3Parameter[] | undefined) ?? []) parameters.push(parameterV2(p));
  const responses: Record<string, unknown> = {};
  const produces = new Set<string>();
  for (const [code, response] of Object.entries((op.responses as Record<string, Record<string, unknown>> | undefined) ?? {})) {
    for (const t of contentTypes(response.content)) produces.add(t);
    const schema = firstSchema(response.content);
    responses[code] = { description: response.description, ...(schema ? { schema } : {}) };
  }
  for (const [key, value] of Object.entries(op)) {
    if (key === 'requestBody' || key === 'parameters' || key === 'responses') continue;
    out[key] = value;
  }
  if (isRecord(body)) out.consumes = contentTypes(body.content);
  out.produces = [...produces];
  out.schemes = ['https'];
  if (parameters.length) out.parameters = parameters;
  out.responses = responses;
  return out;
}

/** One Swagger 2.0 document over the v3 documents of every served group version. */
export function openApiV2Document(documents: readonly OpenApiDocument[], info: { title: string; version: string }): SwaggerDocument {
  const paths: SwaggerDocument['paths'] = {};
  const definitions: SwaggerDocument['definitions'] = {};
  for (const doc of documents) {
    for (const [path, item] of Object.entries(doc.paths)) {
      const out: Record<string, unknown> = {};
      for (const method of METHODS) if (isRecord(item[method])) out[method] = operationV2(item[method]);
      if (Array.isArray(item.parameters)) out.parameters = (item.parameters as V3Parameter[]).map(parameterV2);
      paths[path] = out;
    }
    for (const [name, schema] of Object.entries(doc.components.schemas)) definitions[name] ??= definitionV2(name, schema);
  }
  const sorted = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    swagger: '2.0',
    info,
    paths: sorted(paths),
    definitions: sorted(definitions),
    securityDefinitions: {
      BearerToken: { description: 'Bearer Token authentication', in: 'header', name: 'authorization', type: 'apiKey' },
    },
    security: [{ BearerToken: [] }],
  };
}

/** The entity tag Kubernetes gives `/openapi/v2`: SHA-512 of the bytes served, upper-case hex. */
export function openApiV2Etag(bytes: string | Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex').toUpperCase();
}
