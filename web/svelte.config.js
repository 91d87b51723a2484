// SvelteKit configuration. The production server is dist/server/main.js (terminal-mcp-web),
// which imports build/handler.js: adapter-node's own settings are read from environment
// variables under a private prefix that only that server sets, so an ORIGIN/HOST/PORT in
// the operator's environment cannot change how requests are interpreted.
import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
const config = {
  preprocess: vitePreprocess(),
  kit: {
    adapter: adapter({ out: 'build', envPrefix: 'TERMINAL_MCP_WEB_KIT_', precompress: false }),
    // Our own same-origin check (hooks.server.ts) covers every mutation; SvelteKit's form
    // check (on by default, no trusted origins) stays as a second layer.
    csp: {
      mode: 'hash',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self', 'unsafe-inline'],
        'img-src': ['self', 'data:'],
        'font-src': ['self'],
        'connect-src': ['self'],
        'form-action': ['self'],
        'base-uri': ['self'],
        'frame-ancestors': ['none'],
        'object-src': ['none'],
      },
    },
  },
};

export default config;
