import { parseIndexes } from './completion-indexes';
import { matchSuccessPolicy } from './success-policy';

describe('matchSuccessPolicy', () => {
  const succeeded = parseIndexes('0-2,5', 10);

  it('needs every index a rule names, or succeededCount of them', () => {
    expect(matchSuccessPolicy({ rules: [{ succeededIndexes: '0,5' }] }, 10, succeeded)).toBe('Matched rules at index 0');
    expect(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-3' }] }, 10, succeeded)).toBeUndefined();
    expect(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-3' }, { succeededIndexes: '2-6', succeededCount: 2 }] }, 10, succeeded)).toBe(
      'Matched rules at index 1',
    );
  });

  it('with succeededCount alone, counts any indexes', () => {
    expect(matchSuccessPolicy({ rules: [{ succeededCount: 4 }] }, 10, succeeded)).toBe('Matched rules at index 0');
    expect(matchSuccessPolicy({ rules: [{ succeededCount: 5 }] }, 10, succeeded)).toBeUndefined();
  });

  it('matches nothing without a policy or a success', () => {
    expect(matchSuccessPolicy(undefined, 10, succeeded)).toBeUndefined();
    expect(matchSuccessPolicy({ rules: [{ succeededCount: 0 }] }, 10, [])).toBeUndefined();
  });
});
