import { parentPort } from 'node:worker_threads';
import { parseDocument } from 'yaml';
import { yamlDocumentToValue, YamlValueError } from './yaml-value';

/** A request to the YAML worker: the text and the nesting limit. */
export interface YamlDecodeRequest {
  id: number;
  text: string;
  maxDepth: number;
}

/** The worker's answer: the value as JSON text, or why the text is not acceptable YAML. */
export type YamlDecodeReply = { id: number; json: string; duplicateFields: string[] } | { id: number; error: string };

/** Parses and converts one YAML document; the same steps run inline for small bodies. */
export function decodeYamlDocument(text: string, maxDepth: number): { value: unknown; duplicateFields: string[] } {
  const document = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  if (document.errors.length > 0) throw new YamlValueError(document.errors[0].message.split('\n')[0]);
  return yamlDocumentToValue(document, maxDepth);
}

function reply(request: YamlDecodeRequest): YamlDecodeReply {
  try {
    const { value, duplicateFields } = decodeYamlDocument(request.text, request.maxDepth);
    return { id: request.id, json: JSON.stringify(value), duplicateFields };
  } catch (error) {
    if (error instanceof YamlValueError) return { id: request.id, error: error.message };
    return { id: request.id, error: error instanceof RangeError ? 'the document is too complex to decode' : String(error) };
  }
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: YamlDecodeRequest) => port.postMessage(reply(request)));
}
