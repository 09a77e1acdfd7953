/**
 * Kubernetes field paths: struct fields joined by dots, list indexes and map keys in brackets
 * (`spec.containers[0].env[1].name`, `metadata.labels[app]`).
 */
export type PathSegment = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'key'; key: string };

export function formatFieldPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) {
    if (s.kind === 'field') out += out ? `.${s.name}` : s.name;
    else if (s.kind === 'index') out += `[${s.index}]`;
    else out += `[${s.key}]`;
  }
  return out;
}

export function joinField(base: string, name: string): string {
  return base ? `${base}.${name}` : name;
}

export function joinIndex(base: string, index: number): string {
  return `${base}[${index}]`;
}

export function joinKey(base: string, key: string): string {
  return `${base}[${key}]`;
}

/** Splits an RFC 6901 JSON pointer (`/spec/containers/0`) into its unescaped tokens. */
export function parseJsonPointer(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}
