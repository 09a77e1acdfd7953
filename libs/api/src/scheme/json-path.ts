/**
 * The subset of Kubernetes JSONPath used by CRD printer columns, scale paths and selectable
 * fields: `.a.b`, `['a.b']`, `[0]`, `[*]` and `[?(@.type=="Ready")]`. Returns every match.
 */
export type JsonPathStep =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; path: string[]; op: '==' | '!=' | 'exists'; value?: string | number | boolean };

function parseLiteral(text: string): string | number | boolean {
  const t = text.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  if (t === 'true' || t === 'false') return t === 'true';
  const n = Number(t);
  return Number.isNaN(n) ? t : n;
}

export function parseJsonPath(path: string): JsonPathStep[] {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const steps: JsonPathStep[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      let j = i + 1;
      while (j < p.length && p[j] !== '.' && p[j] !== '[') j++;
      const name = p.slice(i + 1, j);
      if (name === '*') steps.push({ kind: 'wildcard' });
      else if (name) steps.push({ kind: 'field', name });
      i = j;
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) throw new Error(`unterminated [ in JSONPath ${path}`);
      const inner = p.slice(i + 1, end).trim();
      if (inner === '*') steps.push({ kind: 'wildcard' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else if (inner.startsWith('?(') && inner.endsWith(')')) {
        const expr = inner.slice(2, -1).trim();
        const m = /^@((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=)\s*(.+)$/.exec(expr);
        if (m) steps.push({ kind: 'filter', path: m[1].slice(1).split('.'), op: m[2] as '==' | '!=', value: parseLiteral(m[3]) });
        else if (/^@((?:\.[A-Za-z0-9_-]+)+)$/.test(expr)) steps.push({ kind: 'filter', path: expr.slice(2).split('.'), op: 'exists' });
        else throw new Error(`unsupported JSONPath filter ${expr}`);
      } else throw new Error(`unsupported JSONPath segment [${inner}]`);
      i = end + 1;
    } else {
      throw new Error(`invalid JSONPath ${path} at ${i}`);
    }
  }
  return steps;
}

function get(value: unknown, key: string): unknown {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

export function evaluateJsonPath(obj: unknown, path: string | JsonPathStep[]): unknown[] {
  const steps = typeof path === 'string' ? parseJsonPath(path) : path;
  let current: unknown[] = [obj];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      switch (step.kind) {
        case 'field': {
          const x = get(v, step.name);
          if (x !== undefined) next.push(x);
          break;
        }
        case 'index':
          if (Array.isArray(v)) {
            const list = v as unknown[];
            const x = list[step.index < 0 ? list.length + step.index : step.index];
            if (x !== undefined) next.push(x);
          }
          break;
        case 'wildcard':
          // One by one: spreading a list of a few hundred thousand items overflows the stack.
          if (Array.isArray(v)) for (const item of v) next.push(item);
          else if (v && typeof v === 'object') for (const item of Object.values(v)) next.push(item);
          break;
        case 'filter':
          if (Array.isArray(v)) {
            for (const item of v) {
              const field = step.path.reduce<unknown>((acc, k) => get(acc, k), item);
              if (step.op === 'exists' ? field !== undefined : (field === step.value) === (step.op === '==')) next.push(item);
            }
          }
          break;
      }
    }
    current = next;
  }
  return current;
}

/** The first match, or undefined. */
export function jsonPathValue(obj: unknown, path: string | JsonPathStep[]): unknown {
  return evaluateJsonPath(obj, path)[0];
}
