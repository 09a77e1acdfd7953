export * from './eventually';
