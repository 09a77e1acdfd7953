import { isRecord } from '@svc/machinery';
import { SecretSchema, type Secret } from '../../kinds/core/secret';
import { ageColumn, column, nameColumn } from '../table';
import type { ApiObject } from '../kind-definition';
import { dataBytes, MAX_CONFIG_DATA_BYTES } from './config-map-definition';
import { fieldErrors } from '../../schema/field-error';
import { as, defineKind } from './define-kind';

/**
 * `stringData` is write-only, as in Kubernetes (whose decoding into the internal type merges it):
 * each value is written into `data` in base64, over a `data` key of the same name, and `stringData`
 * itself is never stored or returned. A `stringData` that is not a map of strings stays for
 * validation to refuse.
 */
function foldStringData(secret: ApiObject): void {
  const stringData = secret.stringData;
  if (stringData === undefined || stringData === null) {
    delete secret.stringData;
    return;
  }
  if (!isRecord(stringData) || !Object.values(stringData).every((v) => typeof v === 'string')) return;
  const data = isRecord(secret.data) ? { ...secret.data } : {};
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value as string, 'utf8').toString('base64');
  secret.data = data;
  delete secret.stringData;
}

export const secretDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Secret',
  resource: 'secrets',
  namespaced: true,
  schema: SecretSchema,
  fieldSelectors: { type: (o) => as<Secret>(o).type ?? '' },
  defaultHooks: [foldStringData],
  validationRules: [(o) => (dataBytes(o.data, 'base64') > MAX_CONFIG_DATA_BYTES ? [fieldErrors.tooLong('data', undefined, MAX_CONFIG_DATA_BYTES)] : [])],
  columns: [
    nameColumn(),
    column('Type', 'string', (o) => as<Secret>(o).type ?? '', { description: 'The type of the secret.' }),
    column('Data', 'integer', (o) => Object.keys(as<Secret>(o).data ?? {}).length, { description: 'Number of keys in data.' }),
    ageColumn(),
  ],
});
