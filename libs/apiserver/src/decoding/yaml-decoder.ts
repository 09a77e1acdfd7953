import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { MAX_NESTING_DEPTH, yamlNestingBound } from '@svc/machinery';
import { decodeYamlDocument, type YamlDecodeReply, type YamlDecodeRequest } from './yaml-decode-worker';
import { YamlValueError, type YamlValue } from './yaml-value';

// Bodies at most this large and this shallow are decoded on the event loop (a few milliseconds);
// the others go to a worker thread, so that no YAML body holds the event loop, however large or deep.
const INLINE_MAX_CHARS = 32 * 1024;
const INLINE_MAX_DEPTH = 64;
// A document that takes longer than this in the worker is refused and the worker replaced.
const WORKER_TIMEOUT_MS = 10_000;
// The YAML parser recurses a few frames per level; a larger stack holds the nesting limit with room.
const WORKER_STACK_MB = 16;
// What aliases may expand is bounded by ratio; a heap of its own keeps a surprise from reaching the server's.
const WORKER_HEAP_MB = 512;

/**
 * Decodes one YAML document into a JSON value: nesting is bounded from the text before any parser
 * runs, then the value is built without recursion (see yamlDocumentToValue). Throws YamlValueError
 * for anything that is not acceptable YAML.
 */
export async function decodeYamlText(text: string): Promise<YamlValue> {
  const bound = yamlNestingBound(text, MAX_NESTING_DEPTH);
  if (bound > MAX_NESTING_DEPTH) throw new YamlValueError(`the document nests more than ${MAX_NESTING_DEPTH} levels deep`);
  if (text.length <= INLINE_MAX_CHARS && bound <= INLINE_MAX_DEPTH) return decodeYamlDocument(text, MAX_NESTING_DEPTH);
  return yamlWorker().decode(text);
}

interface Pending {
  resolve: (value: YamlValue) => void;
  reject: (error: Error) => void;
}

/** One worker thread taking documents in turn; it never keeps the process alive on its own. */
class YamlWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly queue: YamlDecodeRequest[] = [];
  private busy: { id: number; timer: NodeJS.Timeout } | undefined;

  decode(text: string): Promise<YamlValue> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.queue.push({ id, text, maxDepth: MAX_NESTING_DEPTH });
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy !== undefined) return;
    const request = this.queue.shift();
    if (request === undefined) {
      this.worker?.unref();
      return;
    }
    const worker = this.start();
    worker.ref();
    const timer = setTimeout(() => this.fail(request.id, 'the document took too long to decode', true), WORKER_TIMEOUT_MS);
    this.busy = { id: request.id, timer };
    worker.postMessage(request);
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(workerEntry(), workerOptions());
    worker.on('message', (reply: YamlDecodeReply) => this.settle(reply));
    worker.on('error', (error: Error) => this.fail(this.busy?.id, `the document could not be decoded: ${error.message}`, false));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      if (this.busy !== undefined) this.fail(this.busy.id, 'the document could not be decoded', false);
    });
    this.worker = worker;
    return worker;
  }

  private settle(reply: YamlDecodeReply): void {
    if (this.busy?.id !== reply.id) return;
    const pending = this.finish(reply.id);
    if (pending === undefined) return;
    if ('error' in reply) pending.reject(new YamlValueError(reply.error));
    else pending.resolve({ value: JSON.parse(reply.json) as unknown, duplicateFields: reply.duplicateFields });
  }

  private fail(id: number | undefined, message: string, restart: boolean): void {
    if (restart && this.worker !== undefined) {
      const stuck = this.worker;
      this.worker = undefined;
      void stuck.terminate();
    }
    if (id === undefined) return;
    this.finish(id)?.reject(new YamlValueError(message));
  }

  private finish(id: number): Pending | undefined {
    if (this.busy?.id === id) {
      clearTimeout(this.busy.timer);
      this.busy = undefined;
      setImmediate(() => this.pump());
    }
    const pending = this.pending.get(id);
    this.pending.delete(id);
    return pending;
  }
}

let shared: YamlWorker | undefined;

function yamlWorker(): YamlWorker {
  shared ??= new YamlWorker();
  return shared;
}

/** The compiled worker module beside this one; from TypeScript sources (tests) it is compiled on load. */
function workerEntry(): string {
  const compiled = join(__dirname, 'yaml-decode-worker.js');
  if (existsSync(compiled)) return compiled;
  const source = join(__dirname, 'yaml-decode-worker.ts');
  // The sources import the libraries by their aliases, which only the test runner maps.
  const aliases = { '@svc/machinery': require.resolve('@svc/machinery') };
  return `
    const Module = require('node:module');
    const { readFileSync } = require('node:fs');
    const { transformSync } = require(${JSON.stringify(require.resolve('@swc/core'))});
    const aliases = ${JSON.stringify(aliases)};
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) { return resolve.call(this, aliases[request] ?? request, ...rest); };
    require.extensions['.ts'] = (module, filename) => module._compile(transformSync(readFileSync(filename, 'utf8'), {
      filename, module: { type: 'commonjs' }, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    }).code, filename);
    require(${JSON.stringify(source)});
  `;
}

function workerOptions(): ConstructorParameters<typeof Worker>[1] {
  const entry = workerEntry();
  return { eval: !entry.endsWith('.js'), resourceLimits: { stackSizeMb: WORKER_STACK_MB, maxOldGenerationSizeMb: WORKER_HEAP_MB } };
}
