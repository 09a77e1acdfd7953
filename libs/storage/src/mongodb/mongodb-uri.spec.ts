import { createStorage } from '../create-storage';
import { databaseFromMongoUri, mongoUriFromServers, redactMongoUri } from './mongodb-uri';
import { serverProblem } from './server-check';

describe('MongoDB backend configuration (no server needed)', () => {
  test('--store-servers split at the commas of a multi-host connection string is joined back', () => {
    expect(mongoUriFromServers(['mongodb://a:27017', 'b:27017', 'c:27017/svc?replicaSet=rs0'])).toBe('mongodb://a:27017,b:27017,c:27017/svc?replicaSet=rs0');
    expect(mongoUriFromServers([' mongodb+srv://cluster.example/db '])).toBe('mongodb+srv://cluster.example/db');
  });

  test('--store-servers must hold exactly one MongoDB connection string', () => {
    expect(() => mongoUriFromServers([])).toThrow(/needs --store-servers/);
    expect(() => mongoUriFromServers(['http://127.0.0.1:2379'])).toThrow(/must be a MongoDB connection string/);
    expect(() => mongoUriFromServers(['mongodb://a:1', 'mongodb://b:1'])).toThrow(/one MongoDB connection string/);
  });

  test('passwords never appear in messages; the database comes from the path', () => {
    expect(redactMongoUri('mongodb://admin:s3cret@db:27017/svc?replicaSet=rs0')).toBe('mongodb://admin:***@db:27017/svc?replicaSet=rs0');
    expect(databaseFromMongoUri('mongodb://a:1,b:2/cluster?replicaSet=rs0')).toBe('cluster');
    expect(databaseFromMongoUri('mongodb://a:1/?replicaSet=rs0')).toBeUndefined();
    expect(databaseFromMongoUri('mongodb://a:1')).toBeUndefined();
  });

  test('a server that is not a replica set member is refused with the way out in the message', () => {
    const standalone = { isWritablePrimary: true, maxWireVersion: 21, ok: 1 };
    expect(serverProblem(standalone, 'mongodb://db:27017')).toBe(
      'MongoDB at mongodb://db:27017 is not a replica set member: the mongodb storage backend needs change ' +
        'streams and transactions; start mongod with --replSet (see docker/mongodb.yml)',
    );
    expect(serverProblem({ ...standalone, setName: 'rs0' }, 'x')).toBeUndefined();
    expect(serverProblem({ msg: 'isdbgrid', maxWireVersion: 21 }, 'x')).toBeUndefined();
    expect(serverProblem({ setName: 'rs0', maxWireVersion: 9 }, 'x')).toMatch(/needs MongoDB 5.0 or newer/);
  });

  test('an unreachable server fails startup with a clear Unavailable error', async () => {
    await expect(
      createStorage({
        backend: 'mongodb',
        servers: ['mongodb://user:pw@127.0.0.1:9/?directConnection=true'],
        compactionIntervalMs: 0,
        connectTimeoutMs: 300,
      }),
    ).rejects.toMatchObject({
      code: 'Unavailable',
      message: expect.stringMatching(/^cannot reach MongoDB at mongodb:\/\/user:\*\*\*@127\.0\.0\.1:9\//),
    });
  });
});
