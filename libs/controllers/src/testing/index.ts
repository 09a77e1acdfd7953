export { startControllers, type RunningControllers } from './start-controllers';
