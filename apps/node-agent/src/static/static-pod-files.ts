import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compileKind, fieldErrorToString, podDefinition, type CompiledKind, type Pod } from '@svc/api';
import { errorMessage } from '@svc/machinery';
import { parse as parseYaml } from 'yaml';

export const ANNOTATION_CONFIG_SOURCE = 'kubernetes.io/config.source';
export const ANNOTATION_CONFIG_HASH = 'kubernetes.io/config.hash';
export const ANNOTATION_CONFIG_SEEN = 'kubernetes.io/config.seen';
export const ANNOTATION_CONFIG_MIRROR = 'kubernetes.io/config.mirror';

/** A manifest larger than this is not a pod: it is refused unread. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** A pod the API server created for a static pod: the agent shows it, never runs it. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[ANNOTATION_CONFIG_MIRROR] !== undefined;
}

/** A pod the agent read from its static pod directory. */
export function isStaticPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[ANNOTATION_CONFIG_SOURCE] === 'file';
}

let podKind: CompiledKind | undefined;
function compiledPodKind(): CompiledKind {
  podKind ??= compileKind(podDefinition);
  return podKind;
}

/**
 * A manifest turned into the pod the agent runs, as Kubernetes' file source does: defaulted and
 * validated as the API server would, named `<name>-<node>`, bound to the node, and given a uid that
 * hashes the node, the file and the pod, so that the same file gives the same uid after a restart
 * of the agent (which then adopts the pod's containers) and a changed file gives a new pod.
 */
export function staticPodFromManifest(text: string, file: string, nodeName: string): Pod {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`cannot be parsed: ${errorMessage(error)}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('must hold a Pod object');
  const pod = doc as Pod & { apiVersion?: unknown; kind?: unknown };
  if (pod.kind !== 'Pod' || pod.apiVersion !== 'v1') throw new Error(`must hold a v1 Pod, not ${String(pod.apiVersion)} ${String(pod.kind)}`);
  const kind = compiledPodKind();
  const unknown = kind.unknownFields(pod);
  if (unknown.length > 0) throw new Error(`unknown field ${JSON.stringify(unknown[0])}`);
  kind.default(pod);
  const metadata = (pod.metadata ??= {});
  if (!metadata.name) throw new Error('metadata.name: Required value');
  metadata.name = `${metadata.name}-${nodeName}`;
  metadata.namespace ||= 'default';
  delete metadata.uid;
  delete metadata.resourceVersion;
  pod.spec = { ...pod.spec, nodeName };
  // Kubernetes lets static pods stay through every NoExecute taint.
  const tolerations = pod.spec.tolerations ?? [];
  if (!tolerations.some((t) => t.operator === 'Exists' && !t.key && t.effect === 'NoExecute')) {
    pod.spec.tolerations = [...tolerations, { operator: 'Exists', effect: 'NoExecute' }];
  }
  delete pod.status;
  const hash = createHash('md5').update(`host:${nodeName}`).update(`file:${file}`).update(JSON.stringify(pod)).digest('hex');
  metadata.uid = hash;
  metadata.annotations = { ...metadata.annotations, [ANNOTATION_CONFIG_HASH]: hash, [ANNOTATION_CONFIG_SOURCE]: 'file' };
  const errors = kind.validate(pod);
  if (errors.length > 0) throw new Error(fieldErrorToString(errors[0]));
  return pod;
}

export interface StaticPodScan {
  pods: Map<string, Pod>;
  /** One line per file that holds no valid pod. */
  problems: Map<string, string>;
}

/** Reads every manifest of `dir` (files not starting with a dot, as Kubernetes). A missing directory holds no pods. */
export async function scanStaticPodDirectory(dir: string, nodeName: string): Promise<StaticPodScan> {
  const scan: StaticPodScan = { pods: new Map(), problems: new Map() };
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return scan;
    throw error;
  }
  for (const name of names) {
    const file = join(dir, name);
    try {
      const info = await stat(file);
      if (!info.isFile()) continue;
      if (info.size > MAX_MANIFEST_BYTES) throw new Error(`is larger than ${MAX_MANIFEST_BYTES} bytes`);
      const pod = staticPodFromManifest(await readFile(file, 'utf8'), file, nodeName);
      const key = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
      if ([...scan.pods.values()].some((p) => `${p.metadata!.namespace}/${p.metadata!.name}` === key))
        throw new Error(`pod ${key} is defined in another file too`);
      scan.pods.set(pod.metadata!.uid!, pod);
    } catch (error) {
      scan.problems.set(file, errorMessage(error));
    }
  }
  return scan;
}
