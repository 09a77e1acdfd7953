import { bool } from '../flags/bool';
import { duration } from '../flags/duration';
import { int, int32 } from '../flags/int';
import { keyValuePairs, mapStringBool } from '../flags/key-value-pairs';
import { portRange } from '../flags/port-range';
import { cidrs } from '../flags/cidrs';
import { moduleSpec } from '../flags/module-spec';
import { float } from '../flags/float';
import { oneOf, string } from '../flags/string';
import { strings } from '../flags/strings';
import { stringToString } from '../flags/string-to-string';
import { flag } from './flag';
import { FlagError } from './flag-error';
import { defineFlagSet, flagTable, helpFlag, versionFlag, type OptionsOf } from './flag-set';
import { parseFlagSet, type ParseOutcome } from './parse-flag-set';

// A small process declared the way a third process would declare its set.
const TABLE = flagTable({
  program: 'svc-test',
  description: 'A test process.',
  groups: [
    {
      title: 'Generic',
      flags: [
        helpFlag('svc-test'),
        versionFlag(),
        flag({ name: 'port', type: int, default: 8080, help: 'port', check: (p: number) => (p === 0 ? 'cannot be 0' : undefined) }),
        flag({ name: 'workers', type: int32, help: 'workers' }),
        flag({ name: 'ratio', type: float, default: 0.5, help: 'ratio' }),
        flag({ name: 'name', type: string, help: 'name' }),
        flag({ name: 'mode', type: oneOf(['a', 'b']), default: 'a', help: 'mode' }),
        flag({ name: 'watch', type: bool, default: true, help: 'watch' }),
        flag({ name: 'debug', type: bool, help: 'debug' }),
        flag({ name: 'tags', type: strings, default: ['x'], help: 'tags' }),
        flag({ name: 'labels', type: stringToString, default: {}, help: 'labels' }),
        flag({ name: 'gates', type: mapStringBool, help: 'gates' }),
        flag({ name: 'apis', type: keyValuePairs({ missingValue: 'true' }), help: 'apis' }),
        flag({ name: 'ports', type: portRange, default: { base: 1, size: 10 }, help: 'ports' }),
        flag({ name: 'nets', type: cidrs, help: 'nets' }),
        flag({ name: 'timeout', type: duration, default: 5_000, help: 'timeout' }),
        flag({ name: 'v', shorthand: 'v', type: int32, help: 'verbosity' }),
        flag({ name: 'vmodule', type: moduleSpec, help: 'vmodule' }),
      ],
    },
  ],
});
type TestOptions = OptionsOf<typeof TABLE>;
const SET = defineFlagSet(TABLE, [(o) => (o.debug && o.name === undefined ? { flag: 'debug', reason: '--name is required with --debug' } : undefined)]);

function run(...argv: string[]): TestOptions {
  const outcome: ParseOutcome<TestOptions> = parseFlagSet(SET, argv);
  if (outcome.action !== 'run') throw new Error(`expected run, got ${outcome.action}`);
  return outcome.options;
}

function failure(...argv: string[]): string {
  try {
    parseFlagSet(SET, argv);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    const message = (error as FlagError).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a FlagError');
}

describe('parseFlagSet', () => {
  it('fills defaults and leaves flags without a default undefined', () => {
    const o = run();
    expect(o).toEqual({
      port: 8080,
      workers: undefined,
      ratio: 0.5,
      name: undefined,
      mode: 'a',
      watch: true,
      debug: undefined,
      tags: ['x'],
      labels: {},
      gates: undefined,
      apis: undefined,
      ports: { base: 1, size: 10 },
      nets: undefined,
      timeout: 5_000,
      v: undefined,
      vmodule: undefined,
    });
  });

  it('does not share default objects between parses', () => {
    run().tags.push('mutated');
    expect(run().tags).toEqual(['x']);
  });

  it.each([
    [['--port=9', '--workers=3', '--ratio=0.25', '--name=n', '--mode=b', '--timeout=1m30s', '--ports=5-6']],
    [['--port', '9', '--workers', '3', '--ratio', '0.25', '--name', 'n', '--mode', 'b', '--timeout', '1m30s', '--ports', '5-6']],
  ])('takes values both as --f=v and --f v: %j', (argv) => {
    expect(run(...argv)).toMatchObject({ port: 9, workers: 3, ratio: 0.25, name: 'n', mode: 'b', timeout: 90_000, ports: { base: 5, size: 2 } });
  });

  it('takes a value starting with a dash after a flag that needs one', () => {
    expect(run('--timeout', '-1s').timeout).toBe(-1_000);
    expect(run('--name', '-x').name).toBe('-x');
  });

  it.each([[['-v', '3']], [['-v=3']], [['--v=3']], [['--v', '3']], [['-v3']]])('reads verbosity from %j', (argv) => {
    expect(run(...argv).v).toBe(3);
  });

  it('reads bool flags alone or with =value only, as Go does', () => {
    expect(run('--debug', '--name=n').debug).toBe(true);
    expect(run('--watch=false').watch).toBe(false);
    expect(run('--watch=0').watch).toBe(false);
    expect(run('--watch=True').watch).toBe(true);
    expect(run('--watch', '--port=1')).toMatchObject({ watch: true, port: 1 });
    expect(failure('--watch', 'false')).toBe('unexpected argument "false": svc-test takes no positional arguments');
  });

  it('reads combined shorthands', () => {
    expect(failure('-vh')).toBe('invalid argument "h" for "-v, --v" flag: parsing "h": invalid syntax');
    expect(parseFlagSet(SET, ['-hv3']).action).toBe('help');
  });

  it('merges repeatable list and map flags, replacing their defaults', () => {
    const o = run(
      '--tags=a,b',
      '--tags',
      'c',
      '--labels=k=v',
      '--labels',
      'k2=v2',
      '--gates=A=true',
      '--gates=B=False',
      '--apis=api/all',
      '--apis=batch/v1=false',
      '--nets=10.0.0.0/8',
      '--nets=fd00::/8',
      '--vmodule=foo*=3,bar=2',
    );
    expect(o.tags).toEqual(['a', 'b', 'c']);
    expect(o.labels).toEqual({ k: 'v', k2: 'v2' });
    expect(o.gates).toEqual({ A: true, B: false });
    expect(o.apis).toEqual({ 'api/all': 'true', 'batch/v1': 'false' });
    expect(o.nets).toEqual(['10.0.0.0/8', 'fd00::/8']);
    expect(o.vmodule).toEqual([
      { pattern: 'foo*', level: 3 },
      { pattern: 'bar', level: 2 },
    ]);
  });

  it('lets the last occurrence of a scalar flag win', () => {
    expect(run('--port=1', '--port=2').port).toBe(2);
  });

  it('gives one-line pflag-style errors naming the flag and the value', () => {
    expect(failure('--no-such-flag')).toBe('unknown flag: --no-such-flag');
    expect(failure('--no-such-flag=3')).toBe('unknown flag: --no-such-flag');
    expect(failure('-x')).toBe("unknown shorthand flag: 'x' in -x");
    expect(failure('-vx')).toBe('invalid argument "x" for "-v, --v" flag: parsing "x": invalid syntax');
    expect(failure('-v')).toBe("flag needs an argument: 'v' in -v");
    expect(failure('---port=1')).toBe('bad flag syntax: ---port=1');
    expect(failure('--=1')).toBe('bad flag syntax: --=1');
    expect(failure('--port')).toBe('flag needs an argument: --port');
    expect(failure('--port=abc')).toBe('invalid argument "abc" for "--port" flag: parsing "abc": invalid syntax');
    expect(failure('--port', '0')).toBe('invalid argument "0" for "--port" flag: cannot be 0');
    expect(failure('--mode=c')).toBe('invalid argument "c" for "--mode" flag: must be one of: a, b');
    expect(failure('-v', 'x')).toBe('invalid argument "x" for "-v, --v" flag: parsing "x": invalid syntax');
    expect(failure('--watch=maybe')).toBe('invalid argument "maybe" for "--watch" flag: parsing "maybe": invalid syntax');
    expect(failure('--timeout=5')).toBe('invalid argument "5" for "--timeout" flag: time: missing unit in duration "5"');
    expect(failure('--workers=99999999999')).toBe('invalid argument "99999999999" for "--workers" flag: parsing "99999999999": value out of range');
  });

  it('rejects positional arguments, also after --', () => {
    expect(failure('serve')).toBe('unexpected argument "serve": svc-test takes no positional arguments');
    expect(failure('--port=1', '--', '-v')).toBe('unexpected argument "-v": svc-test takes no positional arguments');
    expect(failure('-')).toBe('unexpected argument "-": svc-test takes no positional arguments');
    expect(run('--port=1', '--').port).toBe(1);
  });

  it('runs the set rules after parsing, naming the flag and its value', () => {
    expect(failure('--debug')).toBe('invalid argument "true" for "--debug" flag: --name is required with --debug');
    expect(run('--debug', '--name=x').debug).toBe(true);
  });

  it('answers help at -h or --help, before later errors but after earlier ones', () => {
    for (const argv of [['-h'], ['--help'], ['--port=1', '-h', '--no-such-flag'], ['--help=true']]) {
      const outcome = parseFlagSet(SET, argv);
      expect(outcome.action).toBe('help');
      expect(outcome.action === 'help' && outcome.text).toContain('Usage:\n  svc-test [flags]');
    }
    expect(failure('--no-such-flag', '-h')).toBe('unknown flag: --no-such-flag');
    expect(failure('--no-such-flag', '--port=abc')).toBe('unknown flag: --no-such-flag');
    expect(run('--help=false').port).toBe(8080);
  });

  it('answers --version with the program and the root package version', () => {
    const outcome = parseFlagSet(SET, ['--version']);
    expect(outcome).toEqual({ action: 'version', text: expect.stringMatching(/^svc-test v\d+\.\d+\.\d+/) });
    expect(parseFlagSet(SET, ['--version=false']).action).toBe('run');
  });

  it('refuses a table declaring a flag twice', () => {
    expect(() =>
      flagTable({
        program: 'p',
        description: '',
        groups: [{ title: 'G', flags: [flag({ name: 'a', type: int, help: '' }), flag({ name: 'a', type: string, help: '' })] }],
      }),
    ).toThrow('flag --a is declared twice in p');
  });
});
