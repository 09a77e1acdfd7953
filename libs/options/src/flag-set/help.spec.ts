import { bool } from '../flags/bool';
import { duration } from '../flags/duration';
import { int } from '../flags/int';
import { string } from '../flags/string';
import { strings } from '../flags/strings';
import { flag } from './flag';
import { flagTable, helpFlag } from './flag-set';
import { renderHelp } from './help';

describe('renderHelp', () => {
  const table = flagTable({
    program: 'svc-demo',
    description: 'Demo process.',
    groups: [
      {
        title: 'Generic',
        flags: [
          flag({ name: 'secure-port', type: int, default: 6443, help: 'HTTPS port; cannot be 0' }),
          flag({ name: 'advertise-address', type: string, help: 'address advertised' }),
          helpFlag('svc-demo'),
        ],
      },
      {
        title: 'Store',
        flags: [
          flag({ name: 'store-compaction-interval', type: duration, default: 300_000, help: 'compaction interval' }),
          flag({ name: 'store-prefix', type: string, default: '/registry', help: 'prefix' }),
          flag({ name: 'out', type: string, default: '', help: 'output' }),
          flag({ name: 'watch-cache', type: bool, default: true, help: 'watch caching' }),
          flag({ name: 'modes', type: strings, default: ['AlwaysAllow'], help: 'modes' }),
        ],
      },
      { title: 'Empty', flags: [] },
    ],
  });

  it('lays out description, usage and sorted, aligned groups like cobra and pflag', () => {
    expect(renderHelp(table)).toBe(
      [
        'Demo process.',
        '',
        'Usage:',
        '  svc-demo [flags]',
        '',
        'Generic flags:',
        '',
        '      --advertise-address string   address advertised',
        '  -h, --help                       help for svc-demo',
        '      --secure-port int            HTTPS port; cannot be 0 (default 6443)',
        '',
        'Store flags:',
        '',
        '      --modes strings                        modes (default [AlwaysAllow])',
        '      --out string                           output',
        '      --store-compaction-interval duration   compaction interval (default 5m0s)',
        '      --store-prefix string                  prefix (default "/registry")',
        '      --watch-cache                          watch caching (default true)',
      ].join('\n'),
    );
  });
});
