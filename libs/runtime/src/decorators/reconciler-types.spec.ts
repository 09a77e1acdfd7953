import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ts from 'typescript';

// The type errors an operator author gets from `@Reconciler`, compiled with the TypeScript compiler
// API from files the normal build and typecheck leave out (type-fixtures/): each `*.error.ts` must
// fail with exactly the error its first line names, in a message of at most 5 lines; each `*.ok.ts`
// must compile (they assert the inferred types themselves).

const ROOT = resolve(__dirname, '../../../..');
const FIXTURES = join(__dirname, 'type-fixtures');
const MAX_MESSAGE_LINES = 5;

interface Expected {
  code: number;
  text: string;
}

/** `// error TS1238 "<text the message contains>"` on the first line of an error fixture. */
function expectedError(file: string): Expected {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0];
  const match = /^\/\/ error TS(\d+) "(.+)"$/.exec(first);
  if (!match) throw new Error(`${file}: the first line must be // error TS<code> "<message>"`);
  return { code: Number(match[1]), text: match[2] };
}

function compilerOptions(): ts.CompilerOptions {
  const base = ts.readConfigFile(join(ROOT, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  if (base.error) throw new Error(ts.flattenDiagnosticMessageText(base.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent({ ...base.config, files: [] }, ts.sys, ROOT);
  return { ...parsed.options, noEmit: true, types: ['node'] };
}

/** The text of a diagnostic as the compiler prints it, related information included. */
function messageLines(diagnostic: ts.Diagnostic): string[] {
  const related = (diagnostic.relatedInformation ?? []).map((info) => ts.flattenDiagnosticMessageText(info.messageText, '\n'));
  return [ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'), ...related].join('\n').split('\n');
}

const files = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.ts'))
  .sort()
  .map((name) => join(FIXTURES, name));
const errorFixtures = files.filter((file) => file.endsWith('.error.ts'));
const okFixtures = files.filter((file) => file.endsWith('.ok.ts'));

describe('@Reconciler types', () => {
  let program: ts.Program;

  beforeAll(() => {
    // One program for every fixture: the libraries are checked once.
    program = ts.createProgram(files, compilerOptions());
  }, 120_000);

  const diagnosticsOf = (file: string): readonly ts.Diagnostic[] => {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  };

  it('has fixtures of both kinds, and no others', () => {
    expect(errorFixtures.length).toBeGreaterThanOrEqual(8);
    expect(okFixtures.length).toBeGreaterThanOrEqual(3);
    expect(errorFixtures.length + okFixtures.length).toBe(files.length);
  });

  it('leaves the libraries the fixtures import free of errors', () => {
    const outside = program
      .getSemanticDiagnostics()
      .filter((d) => d.file && !d.file.fileName.startsWith(FIXTURES))
      .map((d) => `${d.file!.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(outside).toEqual([]);
  });

  describe.each(errorFixtures.map((file) => [file.slice(FIXTURES.length + 1), file]))('%s', (_name, file) => {
    it('fails with one short error naming the mistake', () => {
      const expected = expectedError(file);
      const diagnostics = diagnosticsOf(file);
      expect(diagnostics.map((d) => [d.code, messageLines(d).join('\n')])).toEqual([[expected.code, expect.stringContaining(expected.text)]]);
      expect(messageLines(diagnostics[0]).length).toBeLessThanOrEqual(MAX_MESSAGE_LINES);
    });
  });

  describe.each(okFixtures.map((file) => [file.slice(FIXTURES.length + 1), file]))('%s', (_name, file) => {
    it('compiles', () => {
      expect(diagnosticsOf(file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
    });
  });
});
