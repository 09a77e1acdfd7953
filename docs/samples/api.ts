/** The kinds' tour (libs/api/README.md), run by test/docs-samples.e2e-spec.ts. */
import { builtinScheme, type ConfigMap } from '@svc/api';

export function sample(): string[] {
  // #region doc
  const cm: ConfigMap = { metadata: { name: 'cfg', namespace: 'default' }, data: { a: '1' } };
  const scheme = builtinScheme(); // register kinds of your own into it
  const deployment = scheme.byApiVersionKind('apps/v1', 'Deployment'); // its resource, schema, scope, ...
  // #endregion
  return [cm.metadata?.name ?? '', deployment?.resource ?? ''];
}
