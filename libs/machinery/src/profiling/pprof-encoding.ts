import { gunzipSync, gzipSync } from 'node:zlib';
import { parse, type Type } from 'protobufjs';

/**
 * The part of pprof's profile.proto (github.com/google/pprof, Apache-2.0) a profile here fills: what
 * `go tool pprof`, Pyroscope and other profilers read from a `/debug/pprof/` endpoint.
 */
const PROFILE_PROTO = `
syntax = "proto3";
package perftools.profiles;
message Profile {
  repeated ValueType sample_type = 1;
  repeated Sample sample = 2;
  repeated Location location = 4;
  repeated Function function = 5;
  repeated string string_table = 6;
  int64 time_nanos = 9;
  int64 duration_nanos = 10;
  ValueType period_type = 11;
  int64 period = 12;
}
message ValueType { int64 type = 1; int64 unit = 2; }
message Sample { repeated uint64 location_id = 1; repeated int64 value = 2; }
message Location { uint64 id = 1; repeated Line line = 4; }
message Line { uint64 function_id = 1; int64 line = 2; }
message Function { uint64 id = 1; int64 name = 2; int64 system_name = 3; int64 filename = 4; int64 start_line = 5; }
`;

const profileType: Type = parse(PROFILE_PROTO, { keepCase: true }).root.lookupType('perftools.profiles.Profile');

/** A JavaScript frame as V8's profilers name it. */
export interface ProfileFrame {
  functionName: string;
  url: string;
  /** Zero-based, as V8 gives it; -1 when unknown. */
  lineNumber: number;
}

/** One stack (leaf first) and its values, in the order of the profile's sample types. */
export interface ProfileSample {
  stack: readonly ProfileFrame[];
  values: readonly number[];
}

export interface ProfileShape {
  sampleTypes: ReadonlyArray<{ type: string; unit: string }>;
  periodType: { type: string; unit: string };
  period: number;
  startMs: number;
  durationMs: number;
  samples: readonly ProfileSample[];
}

/** A profile in pprof's format, gzipped as Go serves it. */
export function encodePprof(shape: ProfileShape): Buffer {
  const strings = [''];
  const stringIds = new Map<string, number>([['', 0]]);
  const str = (s: string): number => {
    let id = stringIds.get(s);
    if (id === undefined) {
      id = strings.length;
      strings.push(s);
      stringIds.set(s, id);
    }
    return id;
  };
  const functions: Array<Record<string, number>> = [];
  const functionIds = new Map<string, number>();
  const locations: Array<{ id: number; line: Array<{ function_id: number; line: number }> }> = [];
  const locationIds = new Map<string, number>();
  const locationOf = (frame: ProfileFrame): number => {
    const name = frame.functionName || '(anonymous)';
    const line = frame.lineNumber + 1;
    const key = `${name}\0${frame.url}\0${line}`;
    let id = locationIds.get(key);
    if (id !== undefined) return id;
    const functionKey = `${name}\0${frame.url}`;
    let functionId = functionIds.get(functionKey);
    if (functionId === undefined) {
      functionId = functions.length + 1;
      functionIds.set(functionKey, functionId);
      functions.push({ id: functionId, name: str(name), system_name: str(name), filename: str(frame.url), start_line: 0 });
    }
    id = locations.length + 1;
    locationIds.set(key, id);
    locations.push({ id, line: [{ function_id: functionId, line: Math.max(0, line) }] });
    return id;
  };
  const samples = shape.samples.map((s) => ({ location_id: s.stack.map(locationOf), value: [...s.values] }));
  const message = profileType.fromObject({
    sample_type: shape.sampleTypes.map((t) => ({ type: str(t.type), unit: str(t.unit) })),
    sample: samples,
    location: locations,
    function: functions,
    period_type: { type: str(shape.periodType.type), unit: str(shape.periodType.unit) },
    period: shape.period,
    time_nanos: Math.round(shape.startMs * 1e6),
    duration_nanos: Math.round(shape.durationMs * 1e6),
    string_table: strings,
  });
  return gzipSync(profileType.encode(message).finish());
}

/** Reads back a profile this module wrote (for tests and tools). */
export function decodePprof(bytes: Buffer): Record<string, unknown> {
  const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  return profileType.toObject(profileType.decode(raw), { longs: Number, defaults: true });
}
