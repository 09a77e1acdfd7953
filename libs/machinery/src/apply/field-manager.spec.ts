import { isResetManagedFields, managerFromUserAgent, validateFieldManager, validateManagedFields } from './index';

describe('field manager names', () => {
  it('defaults to the user agent up to its first slash', () => {
    expect(managerFromUserAgent('kubectl/v1.25.0 (linux/amd64) kubernetes/434bfd8')).toBe('kubectl');
    expect(managerFromUserAgent('my-controller')).toBe('my-controller');
    expect(managerFromUserAgent(undefined)).toBe('');
    expect(managerFromUserAgent('bad\u0007name/1')).toBe('badname');
    expect(managerFromUserAgent(`${'é'.repeat(70)}/1`)).toBe('é'.repeat(64));
  });

  it('accepts printable names up to 128 bytes and requires one for apply', () => {
    expect(validateFieldManager('kubectl')).toEqual([]);
    expect(validateFieldManager('')).toEqual([]);
    expect(validateFieldManager('', { required: true })).toEqual([
      { type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' },
    ]);
    expect(validateFieldManager('x'.repeat(129)).map((e) => e.type)).toEqual(['FieldValueTooLong']);
    expect(validateFieldManager('a\tb')).toEqual([
      { type: 'FieldValueInvalid', field: 'fieldManager', badValue: 'a\tb', detail: 'invalid character U+0009 (at position 1)' },
    ]);
  });

  it('validates managedFields written directly', () => {
    expect(validateManagedFields([{ manager: 'm', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }])).toEqual([]);
    expect(validateManagedFields([{ manager: 'm', operation: 'Patch', fieldsType: 'FieldsV2' }])).toEqual([
      { type: 'FieldValueInvalid', field: 'metadata.managedFields[0].operation', badValue: 'Patch', detail: 'must be `Apply` or `Update`' },
      { type: 'FieldValueInvalid', field: 'metadata.managedFields[0].fieldsType', badValue: 'FieldsV2', detail: 'must be `FieldsV1`' },
    ]);
  });

  it('reads only a list with one empty entry as a reset', () => {
    expect(isResetManagedFields([{}])).toBe(true);
    expect(isResetManagedFields([])).toBe(false);
    expect(isResetManagedFields(undefined)).toBe(false);
    expect(isResetManagedFields([{ manager: 'x' }])).toBe(false);
    expect(isResetManagedFields([{}, {}])).toBe(false);
  });
});
