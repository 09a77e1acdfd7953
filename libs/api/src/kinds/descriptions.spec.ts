import type { JsonSchema } from '../schema/json-schema';
import { openApiV3Document } from '../openapi/openapi-document';
import { builtinScheme } from '../scheme/builtin-scheme';
import { COMPONENT_STATUS_RESOURCE, REVIEW_RESOURCES } from '../scheme/definitions/review-definitions';

/** The components of every built-in group version's OpenAPI v3 document, by name. */
function builtinComponents(): Map<string, JsonSchema> {
  const scheme = builtinScheme();
  const nonStored = [...REVIEW_RESOURCES, COMPONENT_STATUS_RESOURCE];
  const groupVersions = new Set([
    ...scheme.groups().flatMap((g) => g.versions.map((v) => `${g.name}/${v.version}`)),
    ...nonStored.map((r) => `${r.group}/${r.version}`),
  ]);
  const out = new Map<string, JsonSchema>();
  for (const gv of groupVersions) {
    const [group, version] = gv.split('/');
    const doc = openApiV3Document(scheme, group, version, { nonStored });
    for (const [name, schema] of Object.entries(doc.components.schemas)) out.set(name, schema);
  }
  return out;
}

/** Every field without a description in the built-in kinds' OpenAPI documents, by component. */
function undescribedFields(components: Map<string, JsonSchema>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (node: JsonSchema | undefined, component: string, at: string) => {
    if (!node || typeof node !== 'object') return;
    for (const [name, field] of Object.entries(node.properties ?? {})) {
      if (typeof field.description !== 'string' || !field.description.trim()) out.set(component, [...(out.get(component) ?? []), `${at}${name}`]);
      walk(field, component, `${at}${name}.`);
    }
    if (node.items && !Array.isArray(node.items)) walk(node.items, component, at);
    if (node.additionalProperties && typeof node.additionalProperties === 'object') walk(node.additionalProperties, component, at);
  };
  for (const [name, schema] of components) walk(schema, name, '');
  return out;
}

describe('descriptions of the built-in kinds', () => {
  const components = builtinComponents();

  it('describes every field, so that kubectl explain never says <no description>', () => {
    const missing = [...undescribedFields(components)].map(([c, fields]) => `${c}: ${[...new Set(fields)].join(', ')}`);
    expect(missing).toEqual([]);
  });

  it('describes every kind and struct in its own words, not by the name the document would make up for it', () => {
    // What the document says of a kind that has no description (a custom resource's): `Widget of example.com/v1.`
    const madeUp = /^[A-Z][A-Za-z0-9]* of ([a-z0-9.-]+\/)?v[a-z0-9]+\.$/;
    const undescribed = [...components].filter(([, schema]) => typeof schema.description !== 'string' || madeUp.test(schema.description)).map(([name]) => name);
    expect(undescribed).toEqual([]);
  });
});
