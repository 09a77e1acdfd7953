export { eventually } from '@svc/informers/testing';
