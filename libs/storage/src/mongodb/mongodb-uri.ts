import { StorageError } from '../storage-error';

const SCHEME = /^mongodb(\+srv)?:\/\//;

/**
 * One MongoDB connection string from `--store-servers`. That flag is a comma-separated list, and a
 * connection string naming several hosts (`mongodb://a:27017,b:27017/?replicaSet=rs0`) arrives split at
 * its commas; the pieces after the first carry no scheme and are joined back.
 */
export function mongoUriFromServers(servers: readonly string[]): string {
  const parts = servers.map((part) => part.trim()).filter((part) => part !== '');
  if (parts.length === 0) {
    throw new StorageError('InvalidArgument', 'the mongodb storage backend needs --store-servers=mongodb://host:27017/?replicaSet=<name>');
  }
  if (!SCHEME.test(parts[0])) {
    throw new StorageError('InvalidArgument', `--store-servers must be a MongoDB connection string (mongodb://...), got ${redactMongoUri(parts[0])}`);
  }
  if (parts.slice(1).some((part) => part.includes('://'))) {
    throw new StorageError(
      'InvalidArgument',
      '--store-servers takes one MongoDB connection string; name several hosts inside it: ' + 'mongodb://host1:27017,host2:27017/?replicaSet=rs0',
    );
  }
  return parts.join(',');
}

/** The connection string without its password, fit for messages. */
export function redactMongoUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/)([^@/]*)@/, (_match, scheme: string, credentials: string) => {
    const user = credentials.split(':')[0];
    return `${scheme}${user}:***@`;
  });
}

/** The database named in the connection string's path, if any. */
export function databaseFromMongoUri(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(uri);
  return match ? decodeURIComponent(match[1]) : undefined;
}
