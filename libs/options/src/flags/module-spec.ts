import type { FlagType } from './flag-type';

/** One `--vmodule` entry: files matching the glob `pattern` log at `level`. */
export interface ModuleVerbosity {
  pattern: string;
  level: number;
}

/** `pattern=N,...` (klog's moduleSpec): N a whole number >= 0; repeatable, appending. */
export const moduleSpec: FlagType<ModuleVerbosity[]> = {
  name: 'pattern=N,...',
  requiresValue: true,
  parse: (raw, previous) => {
    const out = [...(previous ?? [])];
    for (const entry of raw.split(',')) {
      if (entry === '') continue;
      const at = entry.lastIndexOf('=');
      const pattern = entry.slice(0, at);
      const level = entry.slice(at + 1);
      if (at <= 0 || !/^\d+$/.test(level) || Number(level) > 2 ** 31 - 1) {
        throw new Error(`syntax error in ${JSON.stringify(entry)}: expect comma-separated list of pattern=N`);
      }
      out.push({ pattern, level: Number(level) });
    }
    return out;
  },
  format: (value) => value.map((m) => `${m.pattern}=${m.level}`).join(','),
};
