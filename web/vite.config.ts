import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

// Built by scripts/build-web.mjs into dist/web, which src/dashboard serves at `/`.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // @mailroom/client (packages/client) is built from its TypeScript sources: its `source` export.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  publicDir: false,
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    assetsDir: 'assets',
    // React, the router, TanStack Query and Mantine's core: about 175 kB gzip, shared by every page.
    chunkSizeWarningLimit: 700,
    // One shared chunk per heavy library, so a page's chunk holds only that page.
    rolldownOptions: {
      output: {
        advancedChunks: {
          groups: [
            // First, what the first page loads: a group also takes its modules' dependencies, so
            // without this one the charts group took React and Mantine, and every page loaded recharts.
            { name: 'vendor', test: /node_modules/, tags: ['$initial'] },
            { name: 'codemirror', test: /node_modules[\\/](@codemirror|@lezer|@uiw|codemirror)/ },
            { name: 'charts', test: /node_modules[\\/](recharts|d3-|victory-vendor|@mantine[\\/]charts)/ },
          ],
        },
      },
    },
  },
});
