import { FlagError } from './flag-error';
import type { ParseOutcome } from './parse-flag-set';

/** Where parseOrExit writes and how it ends the process; injectable for tests. */
export interface ProcessIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  exit(code: number): never;
}

const processIo: ProcessIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  exit: (code) => process.exit(code),
};

/**
 * Runs a parser for a process's main: returns the options to run with, or prints help or the version
 * to stdout and exits 0, or prints the one-line error to stderr and exits 2 (Go's flag exit status).
 */
export function parseOrExit<T>(parse: (argv: string[]) => ParseOutcome<T>, argv: string[], io: ProcessIo = processIo): T {
  let outcome: ParseOutcome<T>;
  try {
    outcome = parse(argv);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return io.exit(2);
  }
  if (outcome.action === 'run') return outcome.options;
  io.stdout.write(`${outcome.text}\n`);
  return io.exit(0);
}
