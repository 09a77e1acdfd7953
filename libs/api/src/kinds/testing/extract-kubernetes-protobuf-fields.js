// Writes kubernetes-protobuf-fields.json: for each message the product's protobuf table declares
// (libs/machinery/src/protobuf/kubernetes-schema.ts), every field Kubernetes' own message has, with
// its number, type and label, read from Kubernetes' generated.proto files. The protobuf spec checks
// the table against it. Not part of the test suite: run it by hand when the table gains a message,
//   node libs/api/src/kinds/testing/extract-kubernetes-protobuf-fields.js <k8s.io/api checkout> <k8s.io/apimachinery checkout>
'use strict';
const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { parse } = require('protobufjs');

const [apiDir, machineryDir] = process.argv.slice(2);
if (!apiDir || !machineryDir) {
  console.error('usage: extract-kubernetes-protobuf-fields.js <k8s.io/api checkout> <k8s.io/apimachinery checkout>');
  process.exit(2);
}

// Searched in this order: a name in two of them (core/v1 keeps an old Preconditions) is meta/v1's.
const PROTO_FILES = [
  [machineryDir, 'pkg/apis/meta/v1/generated.proto'],
  [machineryDir, 'pkg/util/intstr/generated.proto'],
  [machineryDir, 'pkg/api/resource/generated.proto'],
  [apiDir, 'core/v1/generated.proto'],
  [apiDir, 'apps/v1/generated.proto'],
  [apiDir, 'rbac/v1/generated.proto'],
  [apiDir, 'policy/v1/generated.proto'],
];

const table = readFileSync(join(__dirname, '../../../../machinery/src/protobuf/kubernetes-schema.ts'), 'utf8');
const wanted = [...table.matchAll(/^message (\w+) \{/gm)].map((m) => m[1]);

function messagesOf(dir, file) {
  // Imports and options name files and extensions this parse does not need.
  const text = readFileSync(join(dir, file), 'utf8').replace(/^\s*(import|option)\b[^;]*;/gm, '');
  const found = new Map();
  const walk = (ns) => {
    for (const nested of ns.nestedArray) {
      if (nested.fields) found.set(nested.name, nested);
      if (nested.nestedArray) walk(nested);
    }
  };
  walk(parse(text, { keepCase: true }).root);
  return found;
}

const sources = PROTO_FILES.map(([dir, file]) => ({ file, messages: messagesOf(dir, file) }));
const messages = {};
for (const name of wanted) {
  const hits = sources.filter((s) => s.messages.has(name));
  if (hits.length === 0) throw new Error(`message ${name} is in none of the proto files`);
  const message = hits[0].messages.get(name);
  const fields = {};
  for (const field of message.fieldsArray) {
    const type = field.type.split('.').pop();
    fields[field.name] = { id: field.id, type, rule: field.map ? `map<${field.keyType}>` : field.repeated ? 'repeated' : 'optional' };
  }
  messages[name] = { file: hits[0].file, fields };
}

const commit = (dir) => execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
const out = { source: { 'k8s.io/api': commit(apiDir), 'k8s.io/apimachinery': commit(machineryDir) }, messages };
// One line per field, so that a change upstream reads as a one-line diff.
const text = JSON.stringify(out, null, 1).replace(
  /\{\n\s*"id": (\d+),\n\s*"type": ("[^"]*"),\n\s*"rule": ("[^"]*")\n\s*\}/g,
  '{ "id": $1, "type": $2, "rule": $3 }',
);
writeFileSync(join(__dirname, 'kubernetes-protobuf-fields.json'), `${text}\n`);
console.log(`${wanted.length} messages written`);
