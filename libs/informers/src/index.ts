export * from './workqueue';
