import { MongoClient } from 'mongodb';
import type { ChangeEvent } from '../storage';
import { configMap, describeStorageContract, key, prefix, take } from '../testing/contract-suite';
import type { ContractTestObject } from '../testing/contract-suite';
import { MongoStorage } from './mongodb-storage';

// The MongoDB backend runs against a real replica set only (docker/mongodb.yml):
//   MONGODB_URI='mongodb://localhost:27017/?replicaSet=rs0' npx jest libs/storage
const uri = process.env.MONGODB_URI;
const skip = uri === undefined || uri === '';
if (skip) {
  console.log('MongoDB storage backend tests skipped: set MONGODB_URI to a replica set to run them');
}
const title = skip
  ? 'MongoDB storage backend honours the storage contract (skipped: MONGODB_URI not set)'
  : 'MongoDB storage backend honours the storage contract';

const databases: string[] = [];
let counter = 0;
function freshDatabase(): string {
  const name = `svc_contract_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  databases.push(name);
  return name;
}

async function dropDatabases(): Promise<void> {
  if (skip || databases.length === 0) return;
  const client = new MongoClient(uri);
  try {
    for (const name of databases.splice(0)) await client.db(name).dropDatabase();
  } finally {
    await client.close();
  }
}

describeStorageContract(
  title,
  {
    open: (options) => MongoStorage.open({ uri: uri as string, database: freshDatabase(), compactionIntervalMs: 0, reconcileIntervalMs: 200, ...options }),
    dispose: dropDatabases,
  },
  skip,
);

(skip ? describe.skip : describe)(
  skip ? 'MongoDB storage backend shared by several API servers (skipped: MONGODB_URI not set)' : 'MongoDB storage backend shared by several API servers',
  () => {
    const stores: MongoStorage[] = [];
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((store) => store.close()));
    });
    afterAll(dropDatabases);

    test('each store sees the writes of the others through its watch, all in one revision order', async () => {
      const database = freshDatabase();
      const open = async (): Promise<MongoStorage> => {
        const store = await MongoStorage.open({ uri: uri as string, database, compactionIntervalMs: 0, reconcileIntervalMs: 200 });
        stores.push(store);
        return store;
      };
      const [a, b] = [await open(), await open()];
      const from = await a.currentRevision();
      const watchA = await a.watch<ContractTestObject>(prefix(), { revision: from });
      const watchB = await b.watch<ContractTestObject>(prefix(), { revision: from });
      const writes: number[] = [];
      await Promise.all(
        [a, b].flatMap((store, s) =>
          Array.from({ length: 4 }, async (_, w) => {
            for (let i = 0; i < 5; i++) {
              const name = `s${s}-w${w}-${i}`;
              const created = await store.create(key(name), configMap(name));
              writes.push(Number(created.metadata.resourceVersion));
            }
          }),
        ),
      );
      const expected = [...writes].sort((x, y) => x - y);
      expect(expected).toEqual(Array.from({ length: 40 }, (_, i) => from + 1 + i));
      for (const watcher of [watchA, watchB]) {
        const events = (await take(watcher, 40)) as Array<ChangeEvent<ContractTestObject>>;
        expect(events.map((e) => e.revision)).toEqual(expected);
      }
      const viaB = await b.get<ContractTestObject>(key('s0-w0-0'));
      expect(viaB.metadata.name).toBe('s0-w0-0');
    });
  },
);
