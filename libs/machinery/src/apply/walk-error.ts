import { FieldSetPath, formatFieldPath } from './path-element';

/** A value that cannot be walked with its schema: an item without its keys, a repeated key, ... */
export class FieldWalkError extends Error {
  override readonly name = 'FieldWalkError';

  constructor(
    readonly path: FieldSetPath,
    readonly reason: string,
  ) {
    super(path.length > 0 ? `${formatFieldPath(path)}: ${reason}` : reason);
  }
}
