// Writes libs/machinery/src/protobuf/kubernetes-messages.json, the table the protobuf codec reads
// and writes Kubernetes' messages with. Two sources are joined, message by message and field by
// field number:
// - Kubernetes' generated.proto files: each message's fields, their numbers, types and labels;
// - the Go types they are generated from (types.go and its siblings): what the wire alone cannot say,
//   the JSON name (and `,inline`), `omitempty`, and whether the Go field is a pointer (written only
//   when set) or a value (always written, zero or not, as gogo-protobuf's marshaller does).
// Not part of the test suite: run it by hand when a served kind needs a package not listed here,
//   node libs/api/src/kinds/testing/extract-kubernetes-protobuf-fields.js <k8s.io/api checkout> <k8s.io/apimachinery checkout> <k8s.io/apiextensions-apiserver checkout>
// (all at the tag of the Kubernetes release served, v0.32.x). apiextensions.k8s.io's types live in
// apiextensions-apiserver, not in k8s.io/api.
'use strict';
const { execFileSync } = require('node:child_process');
const { readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Root, parse } = require('protobufjs');

const [apiDir, machineryDir, apiextensionsDir] = process.argv.slice(2);
if (!apiDir || !machineryDir || !apiextensionsDir) {
  console.error('usage: extract-kubernetes-protobuf-fields.js <k8s.io/api checkout> <k8s.io/apimachinery checkout> <k8s.io/apiextensions-apiserver checkout>');
  process.exit(2);
}

/** The Go packages whose messages the table carries: meta/v1 and its helpers, and the served groups. */
const PACKAGES = [
  [machineryDir, 'pkg/apis/meta/v1'],
  [machineryDir, 'pkg/util/intstr'],
  [machineryDir, 'pkg/api/resource'],
  [machineryDir, 'pkg/runtime'],
  [machineryDir, 'pkg/runtime/schema'],
  ...[
    'core/v1',
    'apps/v1',
    'autoscaling/v1',
    'autoscaling/v2',
    'policy/v1',
    'coordination/v1',
    'discovery/v1',
    'rbac/v1',
    'admissionregistration/v1',
    'authentication/v1',
    'authorization/v1',
    'events/v1',
    'batch/v1',
    'scheduling/v1',
    'storage/v1',
    'networking/v1',
    'node/v1',
    'flowcontrol/v1',
  ].map((dir) => [apiDir, dir]),
  [apiextensionsDir, 'pkg/apis/apiextensions/v1'],
];

/** The checkouts whose packages are served API groups (meta/v1 and its helpers are not). */
const GROUP_SOURCES = new Set([apiDir, apiextensionsDir]);

/**
 * Types whose Go code marshals them by hand (custom Marshal and MarshalJSON): the codec knows their
 * JSON form by this name. Everything else follows from the struct and its tags.
 */
const SPECIAL = {
  'k8s.io.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime': 'microtime',
  'k8s.io.apimachinery.pkg.apis.meta.v1.Duration': 'duration',
  'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': 'rawjson',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawjson',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.api.resource.QuantityValue': 'quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  // A CRD schema's unions and raw values (apiextensions v1's marshal.go).
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON': 'json',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': 'schemaorbool',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': 'schemaorarray',
  'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': 'schemaorstringarray',
};

/** Parses every `type X struct { ... }` and every `type X []Y` of a Go package's hand-written files. */
function goTypesOf(dir) {
  const structs = new Map();
  const lists = new Set();
  const aliases = new Map();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated') || file.startsWith('generated')) continue;
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/^type (\w+) \[\](\w+)\s*$/gm)) lists.add(m[1]);
    // `type List metav1.List`: the same struct under another name.
    for (const m of text.matchAll(/^type (\w+) (\w+)\.(\w+)\s*$/gm)) aliases.set(m[1], m[3]);
    for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const fields = [];
      for (const rawLine of m[2].split('\n')) {
        const line = rawLine.replace(/^\s*\/\/.*$/, '').trim();
        if (line === '') continue;
        const tagMatch = /`([^`]*)`/.exec(line);
        const tags = {};
        if (tagMatch) for (const t of tagMatch[1].matchAll(/(\w+):"([^"]*)"/g)) tags[t[1]] = t[2];
        const head = line
          .replace(/`[^`]*`/, '')
          .replace(/\/\/.*$/, '')
          .trim()
          .split(/\s+/);
        const [name, goType] = head.length === 1 ? [head[0].replace(/^\*/, '').split('.').pop(), head[0]] : head;
        fields.push({ name, goType, tags });
      }
      structs.set(m[1], fields);
    }
  }
  return { structs, lists, aliases };
}

function groupOf(dir) {
  try {
    const m = /const GroupName = "([^"]*)"/.exec(readFileSync(join(dir, 'register.go'), 'utf8'));
    return m ? m[1] : undefined;
  } catch {
    return undefined;
  }
}

// All proto files in one root, imports dropped (every imported file is loaded here too).
const root = new Root();
const packages = {};
const goTypes = new Map();
for (const [base, dir] of PACKAGES) {
  const text = readFileSync(join(base, dir, 'generated.proto'), 'utf8').replace(/^\s*(import|option)\b[^;]*;/gm, '');
  const parsed = parse(text, root, { keepCase: true });
  const pkg = parsed.package;
  goTypes.set(pkg, goTypesOf(join(base, dir)));
  const group = groupOf(join(base, dir));
  const version = dir.split('/').pop();
  if (group !== undefined && GROUP_SOURCES.has(base)) packages[pkg] = { group, version };
}
root.resolveAll();

const messages = {};
const problems = [];
const visit = (ns) => {
  for (const nested of ns.nestedArray) {
    if (nested.fieldsArray) addMessage(nested);
    if (nested.nestedArray) visit(nested);
  }
};

function addMessage(type) {
  const fullName = type.fullName.slice(1);
  const pkg = fullName.slice(0, fullName.lastIndexOf('.'));
  const go = goTypes.get(pkg);
  const entry = {};
  if (SPECIAL[fullName]) entry.special = SPECIAL[fullName];
  if (go.lists.has(type.name)) entry.list = true;
  const alias = go.aliases.get(type.name);
  const goFields = go.structs.get(type.name) ?? (alias ? goTypes.get('k8s.io.apimachinery.pkg.apis.meta.v1').structs.get(alias) : undefined) ?? [];
  const byNumber = new Map();
  for (const f of goFields) {
    const tag = f.tags.protobuf;
    if (!tag) continue;
    const number = Number(tag.split(',')[1]);
    byNumber.set(number, f);
  }
  // An object of its own (it embeds TypeMeta): what an envelope can carry.
  if (goFields.some((f) => /(^|\.)TypeMeta$/.test(f.goType) && !f.tags.protobuf)) entry.kind = true;
  if (!entry.special && !entry.list && goFields.length === 0 && type.fieldsArray.length > 0) problems.push(`${fullName}: no Go struct found`);
  const fields = [];
  // Go struct order, as JSON writes them; the codec writes the wire in number order.
  const ordered = [...type.fieldsArray].sort((a, b) => {
    const ga = goFields.indexOf(byNumber.get(a.id));
    const gb = goFields.indexOf(byNumber.get(b.id));
    return ga - gb || a.id - b.id;
  });
  for (const field of ordered) {
    const out = { name: field.name, id: field.id };
    out.type = field.resolvedType ? field.resolvedType.fullName.slice(1) : field.type;
    if (field.map) {
      out.rule = 'map';
      out.key = field.keyType;
    } else if (field.repeated) out.rule = 'repeated';
    const goField = byNumber.get(field.id);
    if (goField) {
      const [jsonName = '', ...jsonOpts] = (goField.tags.json ?? '').split(',');
      if (jsonOpts.includes('inline')) out.inline = true;
      else if (jsonName === '-') out.json = '-';
      else if ((jsonName || goField.name) !== field.name) out.json = jsonName || goField.name;
      if (jsonOpts.includes('omitempty')) out.omitempty = true;
      if (goField.goType.startsWith('*')) out.ptr = true;
    } else if (!entry.special && !entry.list) {
      problems.push(`${fullName}.${field.name}: no Go field with number ${field.id}`);
    }
    fields.push(out);
  }
  entry.fields = fields;
  messages[fullName] = entry;
}
visit(root);
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}

const describe = (dir) => execFileSync('git', ['-C', dir, 'describe', '--tags', '--always'], { encoding: 'utf8' }).trim();
let source;
try {
  source = {
    'k8s.io/api': describe(apiDir),
    'k8s.io/apimachinery': describe(machineryDir),
    'k8s.io/apiextensions-apiserver': describe(apiextensionsDir),
  };
} catch {
  // An exported tree (git archive) has no history: name the directories' last components instead.
  source = {
    'k8s.io/api': apiDir.split('/').pop(),
    'k8s.io/apimachinery': machineryDir.split('/').pop(),
    'k8s.io/apiextensions-apiserver': apiextensionsDir.split('/').pop(),
  };
}
const tag = process.env.KUBERNETES_SOURCE_TAG;
if (tag) source = { 'k8s.io/api': tag, 'k8s.io/apimachinery': tag, 'k8s.io/apiextensions-apiserver': tag };
const out = { source, packages, messages };
// One line per field, so that a change upstream reads as a one-line diff.
const text = JSON.stringify(out, null, 1).replace(/\{\n\s*"name": [^{}]*?\n\s*\}/g, (block) => block.replace(/\n\s*/g, ' ').replace('{ ', '{ '));
const target = join(__dirname, '../../../../machinery/src/protobuf/kubernetes-messages.json');
writeFileSync(target, `${text}\n`);
console.log(`${Object.keys(messages).length} messages written to ${target}`);
