import { parse, type Type } from 'protobufjs';
import type { JsonSchema } from '../schema/json-schema';
import type { SwaggerDocument } from './openapi-v2';
import { isRecord } from '@svc/machinery';

/**
 * `/openapi/v2` as `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`, the only form
 * client-go's `OpenAPISchema()` asks for (kubectl's validation and its query-parameter check read it).
 * The messages are those of the openapi.v2 protocol (gnostic's `OpenAPIv2.proto`), with the field
 * numbers it gives; only the messages Kubernetes' documents use are declared. Free-form values
 * (defaults, enums, examples, vendor extensions) travel as YAML text, and JSON is YAML.
 */

const OPENAPI_V2_PROTO = `
syntax = "proto3";
package openapi.v2;
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message Any { string yaml = 2; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Document {
  string swagger = 1; Info info = 2; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
}
message Info { string title = 1; string version = 2; string description = 3; }
message ItemsItem { repeated Schema schema = 1; }
message NamedAny { string name = 1; Any value = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message NamedSchema { string name = 1; Schema value = 2; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message NonBodyParameter { oneof oneof { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; repeated string schemes = 10; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof oneof { Parameter parameter = 1; } }
message PathItem {
  Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6;
  Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9;
}
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; bool unique_items = 19; }
message Paths { repeated NamedPathItem path = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; bool unique_items = 20; }
message Response { string description = 1; SchemaItem schema = 2; }
message ResponseValue { oneof oneof { Response response = 1; } }
message Responses { repeated NamedResponseValue response_code = 1; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double multiple_of = 6; double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10;
  int64 max_length = 11; int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15;
  bool unique_items = 16; int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19;
  repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23;
  repeated Schema all_of = 24; Properties properties = 25; bool read_only = 27; Any example = 30;
  repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof oneof { Schema schema = 1; } }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message SecurityDefinitionsItem { oneof oneof { ApiKeySecurity api_key_security = 2; } }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message StringArray { repeated string value = 1; }
message TypeItem { repeated string value = 1; }
`;

let documentType: Type | undefined;

const yaml = (value: unknown) => ({ yaml: `${JSON.stringify(value)}\n` });

function vendorExtensions(node: Record<string, unknown>): Array<{ name: string; value: { yaml: string } }> {
  return Object.entries(node)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: yaml(value) }));
}

const NUMBERS = ['multipleOf', 'maximum', 'minimum', 'maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'] as const;
const SNAKE: Record<string, string> = {
  multipleOf: 'multiple_of',
  maxLength: 'max_length',
  minLength: 'min_length',
  maxItems: 'max_items',
  minItems: 'min_items',
  maxProperties: 'max_properties',
  minProperties: 'min_properties',
};

function schemaMessage(node: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof node.$ref === 'string') out._ref = node.$ref;
  for (const key of ['format', 'title', 'description', 'pattern'] as const) if (typeof node[key] === 'string') out[key] = node[key];
  if (node.default !== undefined) out.default = yaml(node.default);
  if (node.example !== undefined) out.example = yaml(node.example);
  for (const key of NUMBERS) if (typeof node[key] === 'number') out[SNAKE[key] ?? key] = node[key];
  if (node.exclusiveMaximum === true) out.exclusive_maximum = true;
  if (node.exclusiveMinimum === true) out.exclusive_minimum = true;
  if (node.uniqueItems === true) out.unique_items = true;
  if (node.readOnly === true) out.read_only = true;
  if (Array.isArray(node.required)) out.required = node.required;
  if (Array.isArray(node.enum)) out.enum = node.enum.map(yaml);
  if (typeof node.type === 'string') out.type = { value: [node.type] };
  if (isRecord(node.items)) out.items = { schema: [schemaMessage(node.items)] };
  if (isRecord(node.additionalProperties)) out.additional_properties = { schema: schemaMessage(node.additionalProperties) };
  else if (typeof node.additionalProperties === 'boolean') out.additional_properties = { boolean: node.additionalProperties };
  if (Array.isArray(node.allOf)) out.all_of = node.allOf.map((s) => schemaMessage(s));
  if (isRecord(node.properties)) {
    out.properties = { additional_properties: Object.entries(node.properties).map(([name, s]) => ({ name, value: schemaMessage(s) })) };
  }
  const extensions = vendorExtensions(node);
  if (extensions.length) out.vendor_extension = extensions;
  return out;
}

function parameterMessage(p: Record<string, unknown>): Record<string, unknown> {
  if (p.in === 'body') {
    return {
      parameter: {
        body_parameter: {
          description: p.description ?? '',
          name: p.name,
          in: 'body',
          required: p.required === true,
          schema: schemaMessage(p.schema as JsonSchema),
        },
      },
    };
  }
  const sub = {
    required: p.required === true,
    in: p.in,
    description: p.description ?? '',
    name: p.name,
    type: p.type ?? '',
    unique_items: p.uniqueItems === true,
  };
  return { parameter: { non_body_parameter: p.in === 'path' ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub } } };
}

function operationMessage(op: Record<string, unknown>): Record<string, unknown> {
  const responses = Object.entries((op.responses as Record<string, Record<string, unknown>>) ?? {}).map(([name, r]) => ({
    name,
    value: { response: { description: r.description ?? '', ...(isRecord(r.schema) ? { schema: { schema: schemaMessage(r.schema) } } : {}) } },
  }));
  return {
    tags: op.tags ?? [],
    description: op.description ?? '',
    operation_id: op.operationId ?? '',
    produces: op.produces ?? [],
    consumes: op.consumes ?? [],
    parameters: ((op.parameters as Array<Record<string, unknown>>) ?? []).map(parameterMessage),
    responses: { response_code: responses },
    schemes: op.schemes ?? [],
    deprecated: op.deprecated === true,
    vendor_extension: vendorExtensions(op),
  };
}

/** The document as gnostic's `openapi.v2.Document` message. */
export function encodeOpenApiV2Protobuf(doc: SwaggerDocument): Uint8Array {
  documentType ??= parse(OPENAPI_V2_PROTO, { keepCase: true }).root.lookupType('openapi.v2.Document');
  const paths = Object.entries(doc.paths).map(([name, item]) => {
    const value: Record<string, unknown> = {};
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'])
      if (isRecord(item[method])) value[method] = operationMessage(item[method]);
    if (Array.isArray(item.parameters)) value.parameters = (item.parameters as Array<Record<string, unknown>>).map(parameterMessage);
    return { name, value };
  });
  const message = documentType.fromObject({
    swagger: doc.swagger,
    info: doc.info,
    paths: { path: paths },
    definitions: { additional_properties: Object.entries(doc.definitions).map(([name, s]) => ({ name, value: schemaMessage(s) })) },
    security: doc.security.map((req) => ({ additional_properties: Object.entries(req).map(([name, value]) => ({ name, value: { value } })) })),
    security_definitions: {
      additional_properties: Object.entries(doc.securityDefinitions).map(([name, def]) => ({ name, value: { api_key_security: def } })),
    },
  });
  return documentType.encode(message).finish();
}
