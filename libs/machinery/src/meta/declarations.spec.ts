import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The wire types have one home (this folder) and no two exported types of the code base share a
 * name: a second declaration drifts from the first (StatusCause's `type` against `reason` did),
 * and a homonym (storage's and the framework's WatchOptions) makes every import a guess.
 */

const ROOT = resolve(__dirname, '../../../..');
const HOME = relative(ROOT, __dirname);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') out.push(...sourceFiles(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !/\.(e2e-)?spec\.ts$/.test(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

interface Declaration {
  name: string;
  file: string;
}

/** Exported interfaces, type aliases, classes and enums declared (not re-exported) in `files`. */
function exportedTypeDeclarations(files: readonly string[]): Declaration[] {
  const out: Declaration[] = [];
  for (const path of files) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
    for (const statement of source.statements) {
      const declares =
        ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement);
      if (!declares || !statement.name) continue;
      if (!ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
      out.push({ name: statement.name.text, file: relative(ROOT, path) });
    }
  }
  return out;
}

const declarations = exportedTypeDeclarations([...sourceFiles(join(ROOT, 'libs')), ...sourceFiles(join(ROOT, 'apps'))]);

function byName(list: readonly Declaration[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  // A class and an interface of one name in one file are one declaration, merged.
  for (const d of list) if (!map.get(d.name)?.includes(d.file)) map.set(d.name, [...(map.get(d.name) ?? []), d.file]);
  return map;
}

describe('type declarations', () => {
  it('finds the wire types in their home', () => {
    const home = declarations.filter((d) => d.file.startsWith(`${HOME}/`)).map((d) => d.name);
    expect(home).toEqual(expect.arrayContaining(['ObjectMeta', 'Status', 'StatusCause', 'LabelSelector', 'ManagedFieldsEntry', 'WatchEvent']));
  });

  it('declares each exported type name once in all libs and apps', () => {
    const repeated = [...byName(declarations)].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(repeated).toEqual([]);
  });
});
