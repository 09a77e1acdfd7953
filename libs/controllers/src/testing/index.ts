export { builtInControllers, startControllers, type RunningControllers } from './start-controllers';
