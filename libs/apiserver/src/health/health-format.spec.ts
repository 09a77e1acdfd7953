import { formatHealthReport, formatSingleCheck } from './health-format';

describe('formatHealthReport', () => {
  it('answers ok, or every check and the passed line when verbose', () => {
    const outcomes = [
      { name: 'ping', outcome: 'ok' as const },
      { name: 'log', outcome: 'ok' as const },
    ];
    expect(formatHealthReport('livez', outcomes, false)).toEqual({ status: 200, body: 'ok' });
    expect(formatHealthReport('livez', outcomes, true)).toEqual({ status: 200, body: '[+]ping ok\n[+]log ok\nlivez check passed\n' });
    expect(formatHealthReport('healthz', outcomes, true).body).toBe('[+]ping ok\n[+]log ok\nhealthz check passed\n');
  });

  it('marks excluded checks and warns about excludes that match nothing, quoted as Go does', () => {
    const report = formatHealthReport('readyz', [{ name: 'ping', outcome: 'excluded' }], true, ['nope', 'other']);
    expect(report.body).toBe('[+]ping excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope","other"\nreadyz check passed\n');
  });

  it('is always verbose on failure, withholds the reason and ends with the failed line', () => {
    const report = formatHealthReport(
      'readyz',
      [
        { name: 'ping', outcome: 'ok' },
        { name: 'store', outcome: 'failed' },
        { name: 'shutdown', outcome: 'ok' },
      ],
      false,
    );
    expect(report).toEqual({ status: 500, body: '[+]ping ok\n[-]store failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n' });
  });
});

describe('formatSingleCheck', () => {
  it('answers ok, or the reason with a 500', () => {
    expect(formatSingleCheck(undefined)).toEqual({ status: 200, body: 'ok' });
    expect(formatSingleCheck(new Error('store unreachable'))).toEqual({ status: 500, body: 'internal server error: store unreachable\n' });
    expect(formatSingleCheck('plain')).toEqual({ status: 500, body: 'internal server error: plain\n' });
  });
});
