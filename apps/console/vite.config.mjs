// The web console's build: one page and its hashed assets in dist/console, which the API server
// serves at /console/. Nothing is inlined: the server's Content-Security-Policy allows scripts and
// styles only from the console's own files.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/console/',
  logLevel: 'error',
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
  },
  // The console is written against React's API and runs on Preact's implementation of it: a tenth of
  // the code to download and compile, which is most of a cold first view's time on a small machine.
  resolve: {
    alias: [
      { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
      { find: /^react-dom$/, replacement: 'preact/compat' },
      { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
      { find: /^react$/, replacement: 'preact/compat' },
    ],
  },
  // Jest runs the build with NODE_ENV=test: the console is always built for production.
  mode: 'production',
  oxc: { jsx: { runtime: 'automatic', development: false } },
});
