import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WireRequest } from './fuzz-http';
import type { FuzzInput } from './fuzz-input';
import type { DistinctFailure, FuzzRunResult } from './fuzz-runner';

/** The input as fast-check would print it, long strings cut so it stays readable. */
export function describeInput(input: FuzzInput): string {
  return JSON.stringify(input, (_key, value: unknown) =>
    typeof value === 'string' && value.length > 200 ? `${value.slice(0, 60)}...(${value.length} chars)` : value,
  );
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A shell script that sends the request again with curl to a running server
 * (`SERVER=https://127.0.0.1:6443 sh file.sh`), the body beside it in a file of its own.
 */
export function writeReproduction(dir: string, id: string, wire: WireRequest, times: number): string {
  mkdirSync(dir, { recursive: true });
  const script = join(dir, `${id}.sh`);
  const lines = ['#!/bin/sh', '# Sends the failing request again; SERVER defaults to a local API server.', 'SERVER="${SERVER:-https://127.0.0.1:6443}"'];
  let data = '';
  if (wire.body !== undefined) {
    const bodyFile = join(dir, `${id}.body`);
    writeFileSync(bodyFile, wire.body);
    data = ` --data-binary @${shellQuote(bodyFile)}`;
  }
  const headers = wire.headers.map(([k, v]) => ` -H ${shellQuote(`${k}: ${v}`)}`).join('');
  const curl = `curl -sk -X ${shellQuote(wire.method)}${headers}${data} -w '\\n%{http_code}\\n' --path-as-is "$SERVER"${shellQuote(wire.target)}`;
  lines.push(`for i in $(seq ${times}); do`, `  ${curl}`, 'done', '');
  writeFileSync(script, lines.join('\n'), { mode: 0o755 });
  return script;
}

function curlSummary(wire: WireRequest): string {
  const cut = (text: string) => (text.length > 160 ? `${text.slice(0, 120)}...(${text.length} chars)` : text);
  const headers = wire.headers.map(([k, v]) => ` -H ${shellQuote(cut(`${k}: ${v}`))}`).join('');
  const body =
    wire.body === undefined
      ? ''
      : ` --data-binary ${shellQuote(cut(wire.body.toString('utf8')))}${wire.body.length > 160 ? ` (${wire.body.length} bytes)` : ''}`;
  return `curl -sk -X ${wire.method}${headers}${body} --path-as-is "$SERVER"${shellQuote(cut(wire.target))}`;
}

export interface ReportOptions {
  /** The flags of this run that the reproduce command must repeat (`--no-examples`, `--repeat 3`). */
  flags: string;
  repeat: number;
  reproductionDir: string;
}

export function formatFailure(failure: DistinctFailure, index: number, result: FuzzRunResult, options: ReportOptions): string {
  const f = failure.first;
  const lines = [
    `#${index + 1} [${failure.signature}] seen ${failure.count} time(s)`,
    `  ${f.message.slice(0, 2000)}`,
    `  input (send ${f.attempt + 1} of ${options.repeat}): ${describeInput(f.input).slice(0, 3000)}`,
  ];
  if (f.answer) lines.push(`  answer: ${f.answer.status} ${f.answer.contentType} in ${f.answer.ms} ms: ${JSON.stringify(f.answer.body.slice(0, 400))}`);
  lines.push(`  replay: npm run fuzz -- --seed ${result.seed} --path ${f.runIndex}${options.flags}`);
  if (f.wire) {
    const id = `seed${result.seed}-path${f.runIndex}-${f.oracle}`;
    const script = writeReproduction(options.reproductionDir, id, f.wire, f.attempt + 1);
    lines.push(`  curl:   ${curlSummary(f.wire)}`);
    lines.push(`  script: SERVER=https://127.0.0.1:<port> sh ${script}`);
  }
  return lines.join('\n');
}

function top(counts: Record<string, number>, limit: number): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const shown = entries.slice(0, limit).map(([k, v]) => `    ${String(v).padStart(7)}  ${k}`);
  if (entries.length > limit) shown.push(`    ... and ${entries.length - limit} more`);
  return shown.join('\n');
}

export function formatSummary(result: FuzzRunResult): string {
  const s = result.summary;
  return [
    `inputs: ${s.inputs} (${s.requests} requests, ${s.watches} of them watches) in ${(result.elapsedMs / 1000).toFixed(1)} s${result.interrupted ? ' (stopped at the time limit)' : ''}`,
    `server restarts after a crash: ${s.restarts}; restarts to recover lost fixtures: ${s.lostFixtureRestarts}; fixture restores: ${s.fixtureRestores}; fixture snapshots: ${s.snapshots}`,
    `/readyz: ${s.readyz.probes} probes, slowest ${s.readyz.maxMs} ms, ${s.readyz.over1s} over 1 s`,
    'inputs by family:',
    top(s.byFamily, 20),
    'answers by status:',
    top(s.byStatus, 30),
    'inputs by request Content-Type:',
    top(s.byContentType, 30),
    'inputs by kind of input (family:label):',
    top(s.byLabel, 60),
    ...(s.divergences.length > 0
      ? [
          'divergences from Kubernetes (accepted where Kubernetes refuses; not failures):',
          ...s.divergences.map((d) => `    ${String(d.count).padStart(7)}  ${d.divergence} (first at path ${d.runIndex})`),
        ]
      : []),
  ].join('\n');
}
