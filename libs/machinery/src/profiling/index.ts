export { decodePprof, encodePprof, type ProfileFrame, type ProfileSample, type ProfileShape } from './pprof-encoding';
export { MAX_CPU_PROFILE_SECONDS, ProcessProfiler, type ProfileAnswer } from './process-profiler';
