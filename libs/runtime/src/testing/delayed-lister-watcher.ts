import type { ListerWatcher, WatchStream } from '@svc/informers';

/** A ListerWatcher whose watch events arrive `ms` late, as from a slow cache. */
export function delayed<T>(inner: ListerWatcher<T>, ms: number): ListerWatcher<T> {
  return {
    list: (options) => inner.list(options),
    watch: async (options) => {
      const stream = await inner.watch(options);
      const events: WatchStream<T> = {
        stop: () => stream.stop(),
        async *[Symbol.asyncIterator]() {
          for await (const event of stream) {
            await new Promise((resolve) => setTimeout(resolve, ms));
            yield event;
          }
        },
      };
      return events;
    },
  };
}
