import { builtinScheme, type JsonSchema } from '@svc/api';
import { kubernetesMessage, kubernetesMessageNameFor, type KubernetesMessage } from '@svc/machinery';

/**
 * The gate that keeps protobuf lossless: every field of every served built-in kind's schema has a
 * place in the kind's protobuf message. A field the schema serves and the message lacks would be
 * dropped by every protobuf reader and writer (the controllers' informers among them), silently,
 * where JSON keeps it. A field added to a schema needs its Kubernetes field number in
 * libs/machinery/src/protobuf (kubernetes-messages-later.json for fields newer than the table).
 */

type Keyed = Map<string, KubernetesMessage['fields'][number]>;

function jsonKeys(message: KubernetesMessage): Keyed {
  const keys: Keyed = new Map();
  for (const field of message.fields) {
    if (field.inline && field.messageName) {
      const inner = kubernetesMessage(field.messageName);
      if (inner) for (const [key, value] of jsonKeys(inner)) keys.set(key, value);
    } else if (field.json !== undefined) {
      keys.set(field.json, field);
    }
  }
  return keys;
}

function missing(schema: JsonSchema | undefined, messageName: string, path: string, out: string[], depth = 0): void {
  const message = kubernetesMessage(messageName);
  if (!schema || !message || message.special || message.list || depth > 40) return;
  const keys = jsonKeys(message);
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (depth === 0 && (key === 'apiVersion' || key === 'kind')) continue;
    const field = keys.get(key);
    if (!field) {
      out.push(`${path}.${key}`);
      continue;
    }
    if (!field.messageName) continue;
    const inner = field.rule === 'repeated' ? sub.items : field.rule === 'map' ? sub.additionalProperties : sub;
    missing(typeof inner === 'object' ? inner : undefined, field.messageName, `${path}.${key}`, out, depth + 1);
  }
}

describe('protobuf messages of the served built-in kinds', () => {
  const kinds = builtinScheme()
    .all()
    .map((def) => ({ def, apiVersion: def.group ? `${def.group}/${def.version}` : def.version }));

  it('has a message for every built-in kind', () => {
    const without = kinds.filter(({ def, apiVersion }) => !kubernetesMessageNameFor(apiVersion, def.kind)).map(({ def }) => def.kind);
    expect([...new Set(without)]).toEqual([]);
  });

  it.each(
    kinds
      .filter(({ def, apiVersion }) => kubernetesMessageNameFor(apiVersion, def.kind))
      .map(({ def, apiVersion }) => [`${apiVersion} ${def.kind}`, def, apiVersion] as const),
  )('carries every schema field of %s', (_name, def, apiVersion) => {
    const out: string[] = [];
    missing(def.schema, kubernetesMessageNameFor(apiVersion, def.kind)!, '', out);
    expect(out).toEqual([]);
  });
});
