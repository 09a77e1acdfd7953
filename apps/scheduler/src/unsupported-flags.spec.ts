import { parseSchedulerOptions, type SchedulerOptions } from '@svc/options';
import { unsupportedFlagProblem } from './unsupported-flags';

function parse(argv: string[]): SchedulerOptions {
  const outcome = parseSchedulerOptions(argv);
  if (outcome.action !== 'run') throw new Error('expected options');
  return outcome.options;
}

describe('unsupportedFlagProblem (scheduler)', () => {
  it('accepts no flags and explicit defaults', () => {
    expect(unsupportedFlagProblem(parse([]))).toBeUndefined();
    expect(unsupportedFlagProblem(parse(['--permit-port-sharing=false', '--profiling=true']))).toBeUndefined();
  });

  it('takes --cert-dir, and refuses serving flags it would ignore, naming them', () => {
    expect(unsupportedFlagProblem(parse(['--cert-dir=/tmp/x']))).toBeUndefined();
    expect(unsupportedFlagProblem(parse(['--permit-port-sharing']))).toMatch(/^--permit-port-sharing is not supported/);
  });
});
