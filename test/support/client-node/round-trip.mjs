// Decodes each object read from stdin ([{ type, object }]) into @kubernetes/client-node's typed model
// (`V1Pod`, ...) and encodes it back, as the library does with every response and request; prints
// the results ([{ type, object }]) so that the caller can compare them with what it sent.
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const output = input.map(({ type, object }) => {
  const typed = ObjectSerializer.deserialize(object, type, '');
  return { type, model: typed?.constructor?.name ?? typeof typed, object: ObjectSerializer.serialize(typed, type, '') };
});
process.stdout.write(JSON.stringify(output));
