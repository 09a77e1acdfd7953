import { builtinScheme } from '../scheme/builtin-scheme';
import { REVIEW_RESOURCES } from '../scheme/definitions/review-definitions';
import { openApiV3Document } from './openapi-document';
import { openApiV2Document } from './openapi-v2';
import { encodeOpenApiV2Protobuf } from './openapi-v2-protobuf';

describe('OpenAPI v2 (Swagger 2.0)', () => {
  const scheme = builtinScheme();
  const groupVersions = [
    ...scheme.groups().flatMap((g) => g.versions.map((v) => [g.name, v.version] as const)),
    ...REVIEW_RESOURCES.map((r) => [r.group, r.version] as const),
  ];
  const unique = [...new Map(groupVersions.map(([g, v]) => [`${g}/${v}`, [g, v] as const])).values()];
  const docs = unique.map(([g, v]) => openApiV3Document(scheme, g, v, { nonStored: REVIEW_RESOURCES }));
  const swagger = openApiV2Document(docs, { title: 'svc', version: 'v1.32.0' });

  it('merges every group version into one document with definitions and Swagger 2.0 parameters', () => {
    expect(swagger.swagger).toBe('2.0');
    const patch = swagger.paths['/api/v1/namespaces/{name}'].patch as { parameters: Array<Record<string, unknown>>; consumes: string[] };
    expect(patch['x-kubernetes-group-version-kind' as never]).toEqual({ group: '', version: 'v1', kind: 'Namespace' });
    expect(patch.parameters.find((p) => p.name === 'fieldValidation')).toMatchObject({ in: 'query', type: 'string', uniqueItems: true });
    expect(patch.parameters.find((p) => p.in === 'body')).toMatchObject({
      name: 'body',
      required: true,
      schema: { $ref: '#/definitions/io.svc.apimachinery.pkg.apis.meta.v1.Patch' },
    });
    expect(patch.consumes).toContain('application/strategic-merge-patch+json');
    expect(swagger.paths['/apis/authentication.k8s.io/v1/tokenreviews'].post).toBeDefined();
    expect(swagger.paths['/apis/authentication.k8s.io/v1/tokenreviews'].get).toBeUndefined();
  });

  it('uses no OpenAPI 3.0 keyword Swagger 2.0 lacks, and every reference resolves', () => {
    const text = JSON.stringify(swagger);
    expect(text).not.toContain('#/components/schemas/');
    expect(text).not.toMatch(/"(oneOf|anyOf|nullable|requestBody)"/);
    for (const m of text.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)) expect(swagger.definitions[m[1]]).toBeDefined();
    expect(swagger.definitions['io.svc.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ type: 'string' });
    expect(swagger.definitions['io.svc.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
  });

  it('encodes as the openapi.v2 protobuf message', () => {
    const bytes = encodeOpenApiV2Protobuf(swagger);
    // Field 1 (swagger, length-delimited) comes first: 0x0a, 3, "2.0".
    expect(Array.from(bytes.subarray(0, 5))).toEqual([0x0a, 3, 0x32, 0x2e, 0x30]);
    expect(Buffer.from(bytes).includes(Buffer.from('x-kubernetes-group-version-kind'))).toBe(true);
  });
});
