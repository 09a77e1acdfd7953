export * from './containerd-process';
export { busyboxImageArchive, fullImageName, imageArchive } from '../node-runtime';
