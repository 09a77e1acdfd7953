import type { Container, EnvVar, Pod } from '@svc/api';
import { configEntries, configValue, type ConfigKind, type ConfigObjects } from '../objects/config-objects';
import { ContainerConfigError } from '../objects/container-config-error';
import { podFieldValue, resourceFieldValue, type PodFacts } from '../objects/downward-api';

/** Kubernetes' `$(VAR)` expansion: known names are replaced, `$$` escapes, unknown references stay as written. */
export function expandReferences(text: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch !== '$' || i + 1 >= text.length) {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next === '(') {
      const end = text.indexOf(')', i + 2);
      if (end > 0) {
        const name = text.slice(i + 2, end);
        const value = lookup(name);
        out += value ?? `$(${name})`;
        i = end;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/**
 * The container's environment, in order: `envFrom` sources, then `env` entries (each may refer to
 * earlier ones or to the Services' variables with `$(NAME)`), values from ConfigMaps, Secrets, the
 * pod's fields and resources; then the Services' variables (`serviceEnvironment`) the container does
 * not set itself, as the kubelet appends them.
 */
export async function containerEnvironment(
  pod: Pod,
  container: Container,
  objects: ConfigObjects,
  facts: PodFacts,
  serviceEnv: ReadonlyMap<string, string> = new Map(),
): Promise<Array<[string, Buffer]>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const uid = pod.metadata?.uid ?? '';
  const env = new Map<string, Buffer>();
  const read = async (kind: ConfigKind, name: string, optional: boolean) => {
    const object = await objects.get(kind, namespace, name, uid);
    if (!object && !optional) throw new ContainerConfigError(`${kind === 'secrets' ? 'secret' : 'configmap'} "${name}" not found`);
    return object;
  };
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    const kind: ConfigKind = source.configMapRef ? 'configmaps' : 'secrets';
    if (!ref?.name) continue;
    const object = await read(kind, ref.name, ref.optional === true);
    if (!object) continue;
    for (const [key, value] of configEntries(kind, object)) env.set(`${source.prefix ?? ''}${key}`, value);
  }
  const lookup = (name: string) => env.get(name)?.toString('utf8') ?? serviceEnv.get(name);
  for (const variable of container.env ?? []) {
    const value = await envValue(pod, container, variable, read, lookup, facts);
    // An optional reference to a missing object or key leaves the variable out.
    if (value !== undefined) env.set(variable.name, value);
  }
  for (const [name, value] of serviceEnv) if (!env.has(name)) env.set(name, Buffer.from(value, 'utf8'));
  return [...env.entries()];
}

async function envValue(
  pod: Pod,
  container: Container,
  variable: EnvVar,
  read: (kind: ConfigKind, name: string, optional: boolean) => Promise<unknown>,
  lookup: (name: string) => string | undefined,
  facts: PodFacts,
): Promise<Buffer | undefined> {
  const from = variable.valueFrom;
  if (!from) return Buffer.from(expandReferences(variable.value ?? '', lookup), 'utf8');
  if (from.fieldRef) return Buffer.from(podFieldValue(pod, from.fieldRef.fieldPath, facts), 'utf8');
  if (from.resourceFieldRef) {
    const ref = from.resourceFieldRef;
    return Buffer.from(resourceFieldValue(pod, ref.containerName || container.name, ref.resource, ref.divisor, facts), 'utf8');
  }
  const keyRef = from.configMapKeyRef ?? from.secretKeyRef;
  if (keyRef) {
    const kind: ConfigKind = from.configMapKeyRef ? 'configmaps' : 'secrets';
    const optional = keyRef.optional === true;
    const object = (await read(kind, keyRef.name ?? '', optional)) as Parameters<typeof configValue>[1] | undefined;
    const value = object ? configValue(kind, object, keyRef.key) : undefined;
    if (value === undefined && !optional && object) {
      throw new ContainerConfigError(
        `couldn't find key ${keyRef.key} in ${kind === 'secrets' ? 'Secret' : 'ConfigMap'} ${pod.metadata?.namespace}/${keyRef.name}`,
      );
    }
    return value;
  }
  throw new ContainerConfigError(`env ${variable.name}: valueFrom names no source this node agent supports`);
}
