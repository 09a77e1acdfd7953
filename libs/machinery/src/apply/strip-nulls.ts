import { JsonObject, JsonValue } from '../patch';
import { NodeType, fieldType, shapeOf } from './schema-types';

/**
 * Removes, in place, null fields that the schema types and does not mark `nullable`: an applied
 * `replicas: null` unsets the field, as it does for Kubernetes' typed objects (and as its pruning
 * of custom resources does). Where the schema says nothing, a null is data and stays.
 */
export function stripNulls(value: JsonValue, type: NodeType): void {
  const shape = shapeOf(type, value);
  if (shape.kind === 'map') {
    const object = value as JsonObject;
    for (const key of Object.keys(object)) {
      const child = fieldType(shape.type, key).type;
      if (object[key] === null) {
        if (child.kind !== 'untyped' && !child.nullable) delete object[key];
      } else {
        stripNulls(object[key], child);
      }
    }
  } else if (shape.kind === 'list') {
    for (const item of value as JsonValue[]) stripNulls(item, shape.type.item);
  }
}
