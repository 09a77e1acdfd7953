import { FlagError } from './flag-error';
import type { ParseOutcome } from './parse-flag-set';
import { parseOrExit, type ProcessIo } from './parse-or-exit';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function capture(): { io: ProcessIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      exit: (code: number): never => {
        throw new Exited(code);
      },
    },
  };
}

function exitCode(fn: () => unknown): number {
  try {
    fn();
  } catch (error) {
    if (error instanceof Exited) return error.code;
    throw error;
  }
  throw new Error('expected an exit');
}

describe('parseOrExit', () => {
  const parse = (argv: string[]): ParseOutcome<{ port: number }> => {
    if (argv[0] === '-h') return { action: 'help', text: 'Usage:\n  x [flags]' };
    if (argv[0] === '--version') return { action: 'version', text: 'x v1.2.3' };
    if (argv[0] === '--bad') throw FlagError.invalidArgument('--port', '0', 'cannot be 0');
    if (argv[0] === '--boom') throw new TypeError('bug');
    return { action: 'run', options: { port: 1 } };
  };

  it('returns the options to run with and prints nothing', () => {
    const { io, out, err } = capture();
    expect(parseOrExit(parse, [], io)).toEqual({ port: 1 });
    expect([out, err]).toEqual([[], []]);
  });

  it('prints help to stdout and exits 0', () => {
    const { io, out } = capture();
    expect(exitCode(() => parseOrExit(parse, ['-h'], io))).toBe(0);
    expect(out.join('')).toBe('Usage:\n  x [flags]\n');
  });

  it('prints the version to stdout and exits 0', () => {
    const { io, out } = capture();
    expect(exitCode(() => parseOrExit(parse, ['--version'], io))).toBe(0);
    expect(out.join('')).toBe('x v1.2.3\n');
  });

  it('prints the one-line error to stderr and exits 2', () => {
    const { io, out, err } = capture();
    expect(exitCode(() => parseOrExit(parse, ['--bad'], io))).toBe(2);
    expect(err.join('')).toBe('invalid argument "0" for "--port" flag: cannot be 0\n');
    expect(out).toEqual([]);
  });

  it('lets errors that are not flag errors propagate', () => {
    const { io } = capture();
    expect(() => parseOrExit(parse, ['--boom'], io)).toThrow(TypeError);
  });
});
