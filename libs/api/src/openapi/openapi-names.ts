/** Component names and paths shared by the OpenAPI documents. */

export const META_SCHEMA_PREFIX = 'io.svc.apimachinery.pkg.apis.meta.v1';
export const SCALE_SCHEMA_NAME = 'io.svc.api.autoscaling.v1.Scale';
export const QUANTITY_SCHEMA_NAME = 'io.svc.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING_SCHEMA_NAME = 'io.svc.apimachinery.pkg.util.intstr.IntOrString';

/** `io.svc.api.apps.v1.Deployment` for product groups, reverse DNS (`com.example.v1.Widget`) for others. */
export function openApiSchemaName(group: string, version: string, kind: string): string {
  let prefix: string;
  if (!group) prefix = 'io.svc.api.core';
  else if (!group.includes('.')) prefix = `io.svc.api.${group}`;
  else if (group.endsWith('.svc.io')) prefix = `io.svc.api.${group.slice(0, -'.svc.io'.length)}`;
  else if (group.endsWith('.k8s.io')) prefix = `io.k8s.api.${group.slice(0, -'.k8s.io'.length)}`;
  else prefix = group.split('.').reverse().join('.');
  return `${prefix}.${version}.${kind}`;
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group version in the `/openapi/v3` index. */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}
