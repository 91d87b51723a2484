import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [sveltekit()],
  // Workspace packages are linked, so Vite would inline them (and the broker client's
  // HTTP stack with them): keep them as runtime imports, one copy shared with the
  // terminal-mcp-web server.
  ssr: { external: ['@terminal-mcp/broker-client', '@terminal-mcp/contract', '@terminal-mcp/http-guard'] },
});
