// The API server for tests: a real server in the test's own process, on a temporary store.
export * from './test-environment';
export { httpsCall, type HttpsAnswer } from './https-call';
