import { dirname, join, resolve } from 'node:path';
import type { Static } from '@sinclair/typebox';
import type * as wire from '@svc/machinery';
import * as ts from 'typescript';
import { ConditionSchema, ConditionStatuses } from './condition';
import { DeleteOptionsSchema, PreconditionsSchema, PropagationPolicies } from './delete-options';
import { LabelSelectorOperators, LabelSelectorRequirementSchema, LabelSelectorSchema } from './label-selector';
import { listSchema } from './list';
import { ListMetaSchema } from './list-meta';
import { ManagedFieldsEntrySchema } from './managed-fields-entry';
import { ObjectMetaSchema, objectMetaSchema, TemplateObjectMetaSchema } from './object-meta';
import { OwnerReferenceSchema } from './owner-reference';
import { StatusCauseSchema, StatusDetailsSchema, StatusSchema } from './status';
import { TableColumnDefinitionSchema, TableRowSchema, TableSchema } from './table';
import { TypeMetaSchema } from './type-meta';
import { WATCH_EVENT_TYPES, WatchEventSchema } from './watch-event';

/**
 * The meta/v1 wire types are declared once, in libs/machinery; the schemas here validate them and
 * publish them in OpenAPI. This file does not compile while a schema's static type and its wire
 * type differ in either direction: a field only one of them has, a field optional in one and
 * required in the other, or a field of another type (nested structs included). `npm run
 * typecheck` compiles it; the test below compiles it too, so the test run catches a drift alone.
 */

/** Type identity: unlike assignability both ways, an optional field only one side has fails it. */
type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** `true` when the two agree; otherwise the fields that differ, which the compiler prints in its error. */
export type Agrees<Schema, Wire> =
  Identical<Schema, Wire> extends true
    ? true
    : {
        onlyInSchema: Exclude<keyof Schema, keyof Wire>;
        onlyInWireType: Exclude<keyof Wire, keyof Schema>;
        differing: { [K in keyof Schema & keyof Wire]: Identical<Pick<Schema, K>, Pick<Wire, K>> extends true ? never : K }[keyof Schema & keyof Wire];
      };

/** Compiles only when `Schema` (a schema's static type) and `Wire` (its machinery type) agree. */
export function agree<Schema, Wire>(agreement: Agrees<Schema, Wire>): Agrees<Schema, Wire> {
  return agreement;
}

const AGREEMENTS = {
  TypeMeta: agree<Static<typeof TypeMetaSchema>, wire.TypeMeta>(true),
  ObjectMeta: agree<Static<typeof ObjectMetaSchema>, wire.ObjectMeta>(true),
  ObjectMetaOfDnsLabelNames: agree<Static<ReturnType<typeof objectMetaSchema>>, wire.ObjectMeta>(true),
  TemplateObjectMeta: agree<Static<typeof TemplateObjectMetaSchema>, wire.ObjectMeta>(true),
  OwnerReference: agree<Static<typeof OwnerReferenceSchema>, wire.OwnerReference>(true),
  ManagedFieldsEntry: agree<Static<typeof ManagedFieldsEntrySchema>, wire.ManagedFieldsEntry>(true),
  ListMeta: agree<Static<typeof ListMetaSchema>, wire.ListMeta>(true),
  List: agree<Static<ReturnType<typeof listSchema<typeof OwnerReferenceSchema>>>, wire.List<wire.OwnerReference>>(true),
  Status: agree<Static<typeof StatusSchema>, wire.Status>(true),
  StatusDetails: agree<Static<typeof StatusDetailsSchema>, wire.StatusDetails>(true),
  StatusCause: agree<Static<typeof StatusCauseSchema>, wire.StatusCause>(true),
  Table: agree<Static<typeof TableSchema>, wire.Table>(true),
  TableColumnDefinition: agree<Static<typeof TableColumnDefinitionSchema>, wire.TableColumnDefinition>(true),
  TableRow: agree<Static<typeof TableRowSchema>, wire.TableRow>(true),
  WatchEvent: agree<Static<typeof WatchEventSchema>, wire.WatchEvent>(true),
  WatchEventType: agree<(typeof WATCH_EVENT_TYPES)[number], wire.WatchEventType>(true),
  DeleteOptions: agree<Static<typeof DeleteOptionsSchema>, wire.DeleteOptions>(true),
  Preconditions: agree<Static<typeof PreconditionsSchema>, wire.Preconditions>(true),
  PropagationPolicy: agree<(typeof PropagationPolicies)[number], wire.PropagationPolicy>(true),
  LabelSelector: agree<Static<typeof LabelSelectorSchema>, wire.LabelSelector>(true),
  LabelSelectorRequirement: agree<Static<typeof LabelSelectorRequirementSchema>, wire.LabelSelectorRequirement>(true),
  LabelSelectorOperator: agree<(typeof LabelSelectorOperators)[number], wire.LabelSelectorOperator>(true),
  Condition: agree<Static<typeof ConditionSchema>, wire.Condition>(true),
  ConditionStatus: agree<(typeof ConditionStatuses)[number], wire.ConditionStatus>(true),
};

// ---- compiling with the TypeScript compiler API ----

const THIS_FILE = resolve(__dirname, 'wire-types.spec.ts');
const ROOT = resolve(__dirname, '../../../..');

interface Diagnostic {
  code: number;
  message: string;
}

/** Compiles this file and each of `virtualFiles` (placed beside it) in one program; diagnostics per file. */
function compile(virtualFiles: Record<string, string>): Map<string, Diagnostic[]> {
  const configPath = join(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
  const options: ts.CompilerOptions = { ...parsed.options, noEmit: true };
  const virtual = new Map(Object.entries(virtualFiles).map(([name, text]) => [join(__dirname, name), text]));
  const host = ts.createCompilerHost(options, true);
  const disk = { getSourceFile: host.getSourceFile.bind(host), fileExists: host.fileExists.bind(host), readFile: host.readFile.bind(host) };
  host.fileExists = (file) => virtual.has(file) || disk.fileExists(file);
  host.readFile = (file) => virtual.get(file) ?? disk.readFile(file);
  host.getSourceFile = (file, language, onError, shouldCreate) => {
    const text = virtual.get(file);
    return text !== undefined ? ts.createSourceFile(file, text, language, true) : disk.getSourceFile(file, language, onError, shouldCreate);
  };
  const program = ts.createProgram({ rootNames: [THIS_FILE, ...virtual.keys()], options, host });
  const out = new Map<string, Diagnostic[]>();
  for (const file of [THIS_FILE, ...virtual.keys()]) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    out.set(
      file === THIS_FILE ? 'wire-types.spec.ts' : file.slice(__dirname.length + 1),
      diagnostics.map((d) => ({ code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') })),
    );
  }
  return out;
}

const HEADER = `import { Type, type Static } from '@sinclair/typebox';
import type * as wire from '@svc/machinery';
import { agree } from './wire-types.spec';
`;

describe('meta wire types and their schemas', () => {
  it('agree for every meta type (each check is a compile-time one)', () => {
    expect(Object.values(AGREEMENTS).every((a) => a === true)).toBe(true);
  });

  it('compile, and a schema that drifts from its wire type in either direction does not', () => {
    const results = compile({
      // The drift this check was written for: the schema said `type` where the wire says `reason`.
      'drift-renamed.ts': `${HEADER}
const Cause = Type.Object({ type: Type.Optional(Type.String()), message: Type.Optional(Type.String()), field: Type.Optional(Type.String()) });
agree<Static<typeof Cause>, wire.StatusCause>(true);`,
      'drift-schema-only.ts': `${HEADER}
const Cause = Type.Object({ reason: Type.Optional(Type.String()), message: Type.Optional(Type.String()), field: Type.Optional(Type.String()), code: Type.Optional(Type.Integer()) });
agree<Static<typeof Cause>, wire.StatusCause>(true);`,
      'drift-wire-only.ts': `${HEADER}
const Cause = Type.Object({ reason: Type.Optional(Type.String()), message: Type.Optional(Type.String()) });
agree<Static<typeof Cause>, wire.StatusCause>(true);`,
      'drift-optionality.ts': `${HEADER}
const Cause = Type.Object({ reason: Type.String(), message: Type.Optional(Type.String()), field: Type.Optional(Type.String()) });
agree<Static<typeof Cause>, wire.StatusCause>(true);`,
      'drift-nested.ts': `${HEADER}
const Owner = Type.Object({ apiVersion: Type.String(), kind: Type.String(), name: Type.String(), uid: Type.Integer() });
const Meta = Type.Object({ name: Type.Optional(Type.String()), ownerReferences: Type.Optional(Type.Array(Owner)) });
agree<Static<typeof Meta>, Pick<wire.ObjectMeta, 'name' | 'ownerReferences'>>(true);`,
    });
    expect(results.get('wire-types.spec.ts')).toEqual([]);
    const only = (file: string) => {
      const diagnostics = results.get(file) ?? [];
      expect(diagnostics).toHaveLength(1);
      expect(diagnostics[0].code).toBe(2345);
      return diagnostics[0].message;
    };
    expect(only('drift-renamed.ts')).toContain('{ onlyInSchema: "type"; onlyInWireType: "reason"; differing: never; }');
    expect(only('drift-schema-only.ts')).toContain('{ onlyInSchema: "code"; onlyInWireType: never; differing: never; }');
    expect(only('drift-wire-only.ts')).toContain('{ onlyInSchema: never; onlyInWireType: "field"; differing: never; }');
    expect(only('drift-optionality.ts')).toContain('{ onlyInSchema: never; onlyInWireType: never; differing: "reason"; }');
    expect(only('drift-nested.ts')).toContain('{ onlyInSchema: never; onlyInWireType: never; differing: "ownerReferences"; }');
  }, 60_000);
});
