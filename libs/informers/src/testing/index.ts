// Test doubles for informer users: a scripted list/watch source that plays a resource server.
export { FakeConnectionError, FakeResourceServer } from './fake-resource-server';
export type { FakeResourceServerOptions, FakeWatchFilter } from './fake-resource-server';
export { eventually, settle } from './eventually';
