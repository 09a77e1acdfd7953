import { Root, type Type } from 'protobufjs';

/**
 * The part of etcd's v3 gRPC protocol the store3 backend speaks (`etcdserverpb` and `mvccpb`): the
 * messages of KV (Range, Put, DeleteRange, Txn, Compact), Watch, Lease (Grant, Revoke, TimeToLive) and
 * Maintenance (Status). Field numbers and names are etcd's; fields the backend never reads or sets are
 * left out (protobuf skips unknown fields on decode).
 */
const int64 = (id: number) => ({ type: 'int64', id });
const uint64 = (id: number) => ({ type: 'uint64', id });
const bytes = (id: number) => ({ type: 'bytes', id });
const bool = (id: number) => ({ type: 'bool', id });
const string = (id: number) => ({ type: 'string', id });
const message = (type: string, id: number) => ({ type, id });
const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });

const DESCRIPTOR = {
  nested: {
    mvccpb: {
      nested: {
        KeyValue: {
          fields: { key: bytes(1), create_revision: int64(2), mod_revision: int64(3), version: int64(4), value: bytes(5), lease: int64(6) },
        },
        Event: {
          fields: { type: { type: 'EventType', id: 1 }, kv: message('KeyValue', 2), prev_kv: message('KeyValue', 3) },
          nested: { EventType: { values: { PUT: 0, DELETE: 1 } } },
        },
      },
    },
    etcdserverpb: {
      nested: {
        ResponseHeader: { fields: { cluster_id: uint64(1), member_id: uint64(2), revision: int64(3), raft_term: uint64(4) } },
        RangeRequest: {
          fields: {
            key: bytes(1),
            range_end: bytes(2),
            limit: int64(3),
            revision: int64(4),
            serializable: bool(7),
            keys_only: bool(8),
            count_only: bool(9),
          },
        },
        RangeResponse: {
          fields: { header: message('ResponseHeader', 1), kvs: repeated('mvccpb.KeyValue', 2), more: bool(3), count: int64(4) },
        },
        PutRequest: { fields: { key: bytes(1), value: bytes(2), lease: int64(3), prev_kv: bool(4) } },
        PutResponse: { fields: { header: message('ResponseHeader', 1), prev_kv: message('mvccpb.KeyValue', 2) } },
        DeleteRangeRequest: { fields: { key: bytes(1), range_end: bytes(2), prev_kv: bool(3) } },
        DeleteRangeResponse: {
          fields: { header: message('ResponseHeader', 1), deleted: int64(2), prev_kvs: repeated('mvccpb.KeyValue', 3) },
        },
        RequestOp: {
          oneofs: { request: { oneof: ['request_range', 'request_put', 'request_delete_range'] } },
          fields: {
            request_range: message('RangeRequest', 1),
            request_put: message('PutRequest', 2),
            request_delete_range: message('DeleteRangeRequest', 3),
          },
        },
        ResponseOp: {
          oneofs: { response: { oneof: ['response_range', 'response_put', 'response_delete_range'] } },
          fields: {
            response_range: message('RangeResponse', 1),
            response_put: message('PutResponse', 2),
            response_delete_range: message('DeleteRangeResponse', 3),
          },
        },
        Compare: {
          oneofs: { target_union: { oneof: ['version', 'create_revision', 'mod_revision', 'value', 'lease'] } },
          fields: {
            result: { type: 'CompareResult', id: 1 },
            target: { type: 'CompareTarget', id: 2 },
            key: bytes(3),
            version: int64(4),
            create_revision: int64(5),
            mod_revision: int64(6),
            value: bytes(7),
            lease: int64(8),
          },
          nested: {
            CompareResult: { values: { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } },
            CompareTarget: { values: { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 } },
          },
        },
        TxnRequest: { fields: { compare: repeated('Compare', 1), success: repeated('RequestOp', 2), failure: repeated('RequestOp', 3) } },
        TxnResponse: { fields: { header: message('ResponseHeader', 1), succeeded: bool(2), responses: repeated('ResponseOp', 3) } },
        CompactionRequest: { fields: { revision: int64(1), physical: bool(2) } },
        CompactionResponse: { fields: { header: message('ResponseHeader', 1) } },
        WatchRequest: {
          oneofs: { request_union: { oneof: ['create_request', 'cancel_request', 'progress_request'] } },
          fields: {
            create_request: message('WatchCreateRequest', 1),
            cancel_request: message('WatchCancelRequest', 2),
            progress_request: message('WatchProgressRequest', 3),
          },
        },
        WatchCreateRequest: {
          fields: {
            key: bytes(1),
            range_end: bytes(2),
            start_revision: int64(3),
            progress_notify: bool(4),
            prev_kv: bool(6),
            watch_id: int64(7),
            fragment: bool(8),
          },
        },
        WatchCancelRequest: { fields: { watch_id: int64(1) } },
        WatchProgressRequest: { fields: {} },
        WatchResponse: {
          fields: {
            header: message('ResponseHeader', 1),
            watch_id: int64(2),
            created: bool(3),
            canceled: bool(4),
            compact_revision: int64(5),
            cancel_reason: string(6),
            fragment: bool(7),
            events: repeated('mvccpb.Event', 11),
          },
        },
        LeaseGrantRequest: { fields: { TTL: int64(1), ID: int64(2) } },
        LeaseGrantResponse: { fields: { header: message('ResponseHeader', 1), ID: int64(2), TTL: int64(3), error: string(4) } },
        LeaseRevokeRequest: { fields: { ID: int64(1) } },
        LeaseRevokeResponse: { fields: { header: message('ResponseHeader', 1) } },
        StatusRequest: { fields: {} },
        StatusResponse: {
          fields: {
            header: message('ResponseHeader', 1),
            version: string(2),
            dbSize: int64(3),
            leader: uint64(4),
            raftIndex: uint64(5),
            raftTerm: uint64(6),
            raftAppliedIndex: uint64(7),
            errors: { rule: 'repeated', type: 'string', id: 8 },
            dbSizeInUse: int64(9),
            isLearner: bool(10),
          },
        },
      },
    },
  },
};

const root = Root.fromJSON(DESCRIPTOR);

/** A 64-bit integer as protobufjs decodes it: a number, or a Long when the `long` package is present. */
export type Int64 = number | { toNumber(): number; toString(): string };

/** An int64 as a JavaScript number (revisions and sizes stay far below 2^53). */
export function int64Number(value: Int64 | null | undefined): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'number' ? value : value.toNumber();
}

/** An unsigned 64-bit id in decimal, exactly (member and cluster ids use all 64 bits). */
export function uint64Text(value: Int64 | null | undefined): string {
  if (value === null || value === undefined) return '0';
  return typeof value === 'number' ? String(value) : value.toString();
}

export interface ResponseHeader {
  cluster_id?: Int64;
  member_id?: Int64;
  revision?: Int64;
  raft_term?: Int64;
}

export interface EtcdKeyValue {
  key: Uint8Array;
  create_revision?: Int64;
  mod_revision?: Int64;
  version?: Int64;
  value?: Uint8Array;
  lease?: Int64;
}

export interface EtcdWatchEvent {
  /** 0 PUT, 1 DELETE. */
  type?: number;
  kv?: EtcdKeyValue;
  prev_kv?: EtcdKeyValue;
}

export interface RangeRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  limit?: number;
  revision?: number;
  serializable?: boolean;
  keys_only?: boolean;
  count_only?: boolean;
}

export interface RangeResponse {
  header?: ResponseHeader;
  kvs?: EtcdKeyValue[];
  more?: boolean;
  count?: Int64;
}

export interface PutRequest {
  key: Uint8Array;
  value: Uint8Array;
  lease?: number | string;
  prev_kv?: boolean;
}

export interface PutResponse {
  header?: ResponseHeader;
  prev_kv?: EtcdKeyValue;
}

export interface DeleteRangeRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  prev_kv?: boolean;
}

export interface DeleteRangeResponse {
  header?: ResponseHeader;
  deleted?: Int64;
  prev_kvs?: EtcdKeyValue[];
}

export interface RequestOp {
  request_range?: RangeRequest;
  request_put?: PutRequest;
  request_delete_range?: DeleteRangeRequest;
}

export interface ResponseOp {
  response_range?: RangeResponse;
  response_put?: PutResponse;
  response_delete_range?: DeleteRangeResponse;
}

export const CompareResult = { EQUAL: 0, GREATER: 1, LESS: 2, NOT_EQUAL: 3 } as const;
export const CompareTarget = { VERSION: 0, CREATE: 1, MOD: 2, VALUE: 3, LEASE: 4 } as const;

export interface Compare {
  result: number;
  target: number;
  key: Uint8Array;
  version?: number;
  create_revision?: number;
  mod_revision?: number;
}

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface TxnResponse {
  header?: ResponseHeader;
  succeeded?: boolean;
  responses?: ResponseOp[];
}

export interface CompactionRequest {
  revision: number;
  physical?: boolean;
}

export interface CompactionResponse {
  header?: ResponseHeader;
}

export interface WatchCreateRequest {
  key: Uint8Array;
  range_end?: Uint8Array;
  start_revision?: number;
  progress_notify?: boolean;
  prev_kv?: boolean;
  watch_id?: number;
  fragment?: boolean;
}

export interface WatchRequest {
  create_request?: WatchCreateRequest;
  cancel_request?: { watch_id: number };
  progress_request?: Record<string, never>;
}

export interface WatchResponse {
  header?: ResponseHeader;
  watch_id?: Int64;
  created?: boolean;
  canceled?: boolean;
  compact_revision?: Int64;
  cancel_reason?: string;
  fragment?: boolean;
  events?: EtcdWatchEvent[];
}

export interface LeaseGrantRequest {
  TTL: number;
  ID?: number;
}

export interface LeaseGrantResponse {
  header?: ResponseHeader;
  ID?: Int64;
  TTL?: Int64;
  error?: string;
}

export interface LeaseRevokeRequest {
  ID: number | string;
}

export interface EtcdStatusResponse {
  header?: ResponseHeader;
  version?: string;
  dbSize?: Int64;
  leader?: Int64;
  raftIndex?: Int64;
  raftTerm?: Int64;
  errors?: string[];
  dbSizeInUse?: Int64;
  isLearner?: boolean;
}

/** Encoder and decoder of one message type, in the shape gRPC's generic client takes. */
export interface MessageCodec<T> {
  serialize: (value: T) => Buffer;
  deserialize: (bytes: Buffer) => T;
}

function codec<T>(name: string): MessageCodec<T> {
  const type: Type = root.lookupType(name);
  return {
    // Plain objects with the descriptor's field names encode as they are: no conversion pass.
    serialize: (value) => Buffer.from(type.encode(value as Record<string, unknown>).finish()),
    deserialize: (bytes) => type.decode(bytes) as unknown as T,
  };
}

/** One RPC of etcd's API: its gRPC path and the codecs of its request and response. */
export interface EtcdMethod<Req, Res> {
  path: string;
  request: MessageCodec<Req>;
  response: MessageCodec<Res>;
}

function method<Req, Res>(service: string, name: string, request: string, response: string): EtcdMethod<Req, Res> {
  return { path: `/etcdserverpb.${service}/${name}`, request: codec<Req>(`etcdserverpb.${request}`), response: codec<Res>(`etcdserverpb.${response}`) };
}

export const ETCD = {
  range: method<RangeRequest, RangeResponse>('KV', 'Range', 'RangeRequest', 'RangeResponse'),
  put: method<PutRequest, PutResponse>('KV', 'Put', 'PutRequest', 'PutResponse'),
  deleteRange: method<DeleteRangeRequest, DeleteRangeResponse>('KV', 'DeleteRange', 'DeleteRangeRequest', 'DeleteRangeResponse'),
  txn: method<TxnRequest, TxnResponse>('KV', 'Txn', 'TxnRequest', 'TxnResponse'),
  compact: method<CompactionRequest, CompactionResponse>('KV', 'Compact', 'CompactionRequest', 'CompactionResponse'),
  watch: method<WatchRequest, WatchResponse>('Watch', 'Watch', 'WatchRequest', 'WatchResponse'),
  leaseGrant: method<LeaseGrantRequest, LeaseGrantResponse>('Lease', 'LeaseGrant', 'LeaseGrantRequest', 'LeaseGrantResponse'),
  leaseRevoke: method<LeaseRevokeRequest, { header?: ResponseHeader }>('Lease', 'LeaseRevoke', 'LeaseRevokeRequest', 'LeaseRevokeResponse'),
  status: method<Record<string, never>, EtcdStatusResponse>('Maintenance', 'Status', 'StatusRequest', 'StatusResponse'),
} as const;

/** The revision a response was read or written at. */
export function headerRevision(header: ResponseHeader | undefined): number {
  return int64Number(header?.revision);
}
