import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built by bin/build-web.js at install into web/admin/dist; croupier serves it at /admin/ (src/modules/backoffice/).
export default defineConfig({
  root: import.meta.dirname,
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No source maps shipped; the first load stays small (docs/benchmarks.md), charts load when the dashboard draws them.
    sourcemap: false,
    chunkSizeWarningLimit: 2000,
  },
});
