import type { Document } from 'mongodb';

/** Snapshot reads (used for consistent multi-document reads) need wire version 13, MongoDB 5.0. */
export const MIN_WIRE_VERSION = 13;

/**
 * Why the server that answered `hello` cannot run this backend, or undefined if it can. Change streams
 * and transactions exist only on replica set members and on mongos (`msg: "isdbgrid"`); a standalone
 * mongod answers without `setName`.
 */
export function serverProblem(hello: Document, shownUri: string): string | undefined {
  if (typeof hello.setName !== 'string' && hello.msg !== 'isdbgrid') {
    return (
      `MongoDB at ${shownUri} is not a replica set member: the mongodb storage backend needs change streams ` +
      `and transactions; start mongod with --replSet (see docker/mongodb.yml)`
    );
  }
  if (typeof hello.maxWireVersion === 'number' && hello.maxWireVersion < MIN_WIRE_VERSION) {
    return `MongoDB at ${shownUri} is too old: the mongodb storage backend needs MongoDB 5.0 or newer`;
  }
  return undefined;
}
