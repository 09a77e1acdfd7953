/**
 * Replaces lone UTF-16 surrogates in every string and key of a decoded value with U+FFFD, in place,
 * as Kubernetes' decoders do: JSON text may escape half a surrogate pair (`"\ud800"`), which
 * `JSON.parse` keeps, and a stored lone surrogate makes every later response text that strict JSON
 * decoders refuse. Walks without recursion; returns the value (a replaced top-level string is new).
 */
export function withWellFormedStrings<V>(value: V): V {
  if (typeof value === 'string') return (value.isWellFormed() ? value : value.toWellFormed()) as V;
  if (typeof value !== 'object' || value === null) return value;
  const pending: object[] = [value];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i];
        if (typeof item === 'string') {
          if (!item.isWellFormed()) node[i] = item.toWellFormed();
        } else if (typeof item === 'object' && item !== null) pending.push(item);
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      let item = record[key];
      if (typeof item === 'string' && !item.isWellFormed()) item = record[key] = item.toWellFormed();
      else if (typeof item === 'object' && item !== null) pending.push(item);
      if (!key.isWellFormed()) {
        delete record[key];
        record[key.toWellFormed()] = item;
      }
    }
  }
  return value;
}

/** Whether JSON or YAML text escapes a UTF-16 surrogate (`\ud800`, YAML's `\U0000d800`): only then can it decode to a lone one. */
export function mayEscapeSurrogates(text: string): boolean {
  return /\\(?:u|U0000)[dD][89a-fA-F]/.test(text);
}
