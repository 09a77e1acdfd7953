import type { Container } from '../../kinds/core/container';
import { jsonEqual, LabelQuery, isRecord } from '@svc/machinery';
import type { LabelSelector } from '../../meta/label-selector';
import { annotationSizeErrors } from '../../meta/names';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';

/** Checks shared by controllers of pod templates (Deployment, ReplicaSet). */
export function validateSelectorAndTemplate(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = obj.spec;
  if (!isRecord(spec) || !isRecord(spec.selector)) return errors;
  const selector = spec.selector as LabelSelector;
  const query = selectorQuery(selector);
  if (query?.isEmpty()) {
    errors.push(fieldErrors.invalid('spec.selector', selector, `empty selector is invalid for ${(obj.kind ?? 'this kind').toLowerCase()}`));
    return errors;
  }
  const template = isRecord(spec.template) ? spec.template : {};
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const labels = isRecord(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
  if (query && !query.matches(labels)) {
    errors.push(fieldErrors.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  errors.push(...templateErrors(template, 'spec.template'));
  const podSpec = isRecord(template.spec) ? template.spec : undefined;
  if (podSpec && podSpec.restartPolicy !== undefined && podSpec.restartPolicy !== 'Always') {
    errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  }
  return errors;
}

/**
 * The checks of a pod template's own metadata beyond its schema: the pods made from it must pass the
 * object rules, or a controller could never create them.
 */
export function templateErrors(template: unknown, path: string): FieldError[] {
  const metadata = isRecord(template) && isRecord(template.metadata) ? template.metadata : {};
  return annotationSizeErrors(metadata.annotations, `${path}.metadata.annotations`);
}

/** `CONTAINERS` and `IMAGES` cells of the wide output. */
export function containerCells(containers: readonly Partial<Container>[] | undefined): { names: string; images: string } {
  const list = containers ?? [];
  return { names: list.map((c) => c.name ?? '').join(','), images: list.map((c) => c.image ?? '').join(',') };
}

export function selectorCell(selector: LabelSelector | undefined): string {
  return (selector && selectorQuery(selector)?.toString()) || '<none>';
}

/** The query of a label selector; a malformed one (reported by the schema) is undefined: nothing to match. */
export function selectorQuery(selector: unknown): LabelQuery | undefined {
  if (!isRecord(selector)) return undefined;
  try {
    return LabelQuery.fromLabelSelector(selector);
  } catch {
    return undefined;
  }
}

/** apps/v1 made a workload's selector immutable. */
export function immutableSelector(object: ApiObject, current: ApiObject): FieldError[] {
  const selector = isRecord(object.spec) ? object.spec.selector : undefined;
  const oldSelector = isRecord(current.spec) ? current.spec.selector : undefined;
  return jsonEqual(selector, oldSelector) ? [] : [fieldErrors.invalid('spec.selector', selector, 'field is immutable')];
}

/** The number of a percentage in an int-or-string field (`"25%"` -> 25); undefined for an integer or anything else. */
export function percentValue(value: unknown): number | undefined {
  return typeof value === 'string' && /^[0-9]+%$/.test(value) ? Number(value.slice(0, -1)) : undefined;
}
