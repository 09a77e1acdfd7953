export { frameworkVersion, scaffoldProject, ScaffoldError, type ScaffoldOptions } from './scaffold-project';
export { runCli } from './cli';
