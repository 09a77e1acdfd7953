import { ConfigMapSchema, type ConfigMap } from '../../kinds/core/config-map';
import { fieldErrors } from '../../schema/field-error';
import { ageColumn, column, nameColumn } from '../table';
import { as, defineKind } from './define-kind';

export const configMapDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
  schema: ConfigMapSchema,
  columns: [
    nameColumn(),
    column('Data', 'integer', (o) => Object.keys(as<ConfigMap>(o).data ?? {}).length + Object.keys(as<ConfigMap>(o).binaryData ?? {}).length, {
      description: 'Number of keys in data and binaryData.',
    }),
    ageColumn(),
  ],
  validationRules: [
    (o) => {
      const cm = as<ConfigMap>(o);
      const binary = cm.binaryData && typeof cm.binaryData === 'object' ? cm.binaryData : {};
      return Object.keys(cm.data && typeof cm.data === 'object' ? cm.data : {})
        .filter((k) => Object.prototype.hasOwnProperty.call(binary, k))
        .map((k) => fieldErrors.invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
    },
  ],
});
