/**
 * A path to a field inside an object, printed the way Kubernetes prints it in validation
 * messages: `spec.containers[0].image`, `metadata.labels[app]`.
 */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly name: string,
    private readonly subscript: string | undefined,
  ) {}

  /** A path starting at `name`, optionally followed by more child names. */
  static root(name: string, ...more: string[]): FieldPath {
    let path = new FieldPath(undefined, name, undefined);
    for (const child of more) path = new FieldPath(path, child, undefined);
    return path;
  }

  child(name: string, ...more: string[]): FieldPath {
    let path = new FieldPath(this, name, undefined);
    for (const child of more) path = new FieldPath(path, child, undefined);
    return path;
  }

  /** A list element: `containers[0]`. */
  index(i: number): FieldPath {
    return new FieldPath(this, '', String(i));
  }

  /** A map entry: `labels[app]`. */
  key(k: string): FieldPath {
    return new FieldPath(this, '', k);
  }

  toString(): string {
    const elems: FieldPath[] = [];
    for (let p: FieldPath | undefined = this; p; p = p.parent) elems.push(p);
    let out = '';
    for (let i = elems.length - 1; i >= 0; i--) {
      const p = elems[i];
      if (p.subscript !== undefined) {
        out += `[${p.subscript}]`;
      } else {
        if (p.parent && p.name.length > 0) out += '.';
        out += p.name;
      }
    }
    return out;
  }
}

/** Shorthand for `FieldPath.root`. */
export function fieldPath(name: string, ...more: string[]): FieldPath {
  return FieldPath.root(name, ...more);
}
