import { fieldErrorMessage } from './field-errors';
import { validateLabelSelector } from './label-selector';

describe('validateLabelSelector', () => {
  it('accepts a missing, an empty and a well-formed selector', () => {
    expect(validateLabelSelector(undefined, 'spec.selector')).toEqual([]);
    expect(validateLabelSelector({}, 'spec.selector')).toEqual([]);
    expect(
      validateLabelSelector(
        {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['a'] },
            { key: 'env', operator: 'NotIn', values: ['prod', ''] },
            { key: 'x', operator: 'Exists' },
            { key: 'y', operator: 'DoesNotExist', values: [] },
          ],
        },
        'spec.selector',
      ),
    ).toEqual([]);
  });

  it('needs values for In and NotIn and forbids them for Exists and DoesNotExist', () => {
    const errs = validateLabelSelector(
      {
        matchExpressions: [
          { key: 'a', operator: 'In' },
          { key: 'b', operator: 'NotIn', values: [] },
          { key: 'c', operator: 'Exists', values: ['x'] },
          { key: 'd', operator: 'DoesNotExist', values: ['x'] },
          { key: 'e', operator: 'Like' as never },
        ],
      },
      'spec.selector',
    );
    expect(errs.map(fieldErrorMessage)).toEqual([
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[2].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      "spec.selector.matchExpressions[3].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[4].operator: Invalid value: "Like": not a valid selector operator',
    ]);
  });

  it('checks keys and values', () => {
    const errs = validateLabelSelector(
      { matchLabels: { 'bad key': 'v' }, matchExpressions: [{ key: '-k', operator: 'In', values: ['ok', 'not ok'] }] },
      'spec.selector',
    );
    expect(errs.map((e) => [e.type, e.field, e.badValue])).toEqual([
      ['FieldValueInvalid', 'spec.selector.matchLabels', 'bad key'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[0].key', '-k'],
      ['FieldValueInvalid', 'spec.selector.matchExpressions[0].values[1]', 'not ok'],
    ]);
  });
});
