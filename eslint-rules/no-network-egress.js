// The broker opens no network connection (docs/architecture.md section 1, "The
// notifier"): notification delivery is the notifier process's, and the broker talks only
// to tmux, git, its stores and its own Unix sockets. Reported in services/broker/src:
// - importing a module whose only use is the network (https, http2, tls, dgram, dns,
//   undici, node-fetch, axios, got; with or without `node:`);
// - importing a client call from node:net or node:http (`connect`, `createConnection`,
//   `request`, `get`) or the WebSocket client from `ws` (servers on Unix sockets are fine);
// - using the global `fetch`, `WebSocket`, `EventSource` or `XMLHttpRequest`.
// A client that connects to a Unix socket path (never a host or port) says so in its
// disable comment:
//   // eslint-disable-next-line terminal-mcp/no-network-egress -- <which Unix socket, why>
// test/src/network-egress-rule.test.ts proves the rule fires on samples and pins the
// exceptions; test/src/notifier-delivery.test.ts watches the broker process hold no TCP
// or UDP socket while notices are delivered.

const NETWORK_ONLY = new Set(['https', 'http2', 'tls', 'dgram', 'dns', 'dns/promises', 'undici', 'node-fetch', 'axios', 'got']);
const CLIENT_CALLS = new Set(['connect', 'createConnection', 'request', 'get']);
const CLIENT_GLOBALS = new Set(['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']);
const bare = (source) => source.replace(/^node:/, '');

/** @type {import('eslint').Rule.RuleModule} */
export const noNetworkEgress = {
  meta: {
    type: 'problem',
    docs: { description: 'forbid network clients in the broker: delivery over the network is the notifier process\'s' },
    messages: {
      module: 'The broker opens no network connection: `{{source}}` is a network module. Network delivery belongs to the notifier (services/notifier); queue it in the notice outbox.',
      client: 'The broker opens no network connection: `{{name}}` from `{{source}}` is a client. Only a Unix-socket client may use it, saying which socket in its disable comment.',
      global: 'The broker opens no network connection: the global `{{name}}` is a network client. Network delivery belongs to the notifier (services/notifier).',
    },
    schema: [],
  },
  create(context) {
    const checkSource = (node, source) => {
      if (typeof source === 'string' && NETWORK_ONLY.has(bare(source))) context.report({ node, messageId: 'module', data: { source } });
    };
    return {
      ImportDeclaration(node) {
        const source = node.source.value;
        checkSource(node, source);
        if (node.importKind === 'type') return;
        const mod = bare(String(source));
        for (const spec of node.specifiers) {
          if (spec.type === 'ImportSpecifier' && spec.importKind === 'type') continue;
          const name = spec.type === 'ImportSpecifier' ? (spec.imported.name ?? spec.imported.value) : spec.type === 'ImportDefaultSpecifier' ? 'default' : '*';
          const client = ((mod === 'net' || mod === 'http') && (CLIENT_CALLS.has(name) || name === '*' || name === 'default')) || (mod === 'ws' && (name === 'default' || name === 'WebSocket' || name === '*'));
          if (client) context.report({ node: spec, messageId: 'client', data: { name, source: String(source) } });
        }
      },
      ImportExpression(node) {
        if (node.source.type === 'Literal') checkSource(node, node.source.value);
      },
      'Program:exit'(program) {
        const scope = context.sourceCode.getScope(program);
        // A configured global (eslint.config.js declares `fetch`) is a variable of the
        // global scope without a definition; an undeclared one is left in `through`.
        const refs = [...scope.through, ...scope.variables.filter((v) => v.defs.length === 0).flatMap((v) => v.references)];
        for (const ref of refs) {
          if (CLIENT_GLOBALS.has(ref.identifier.name)) context.report({ node: ref.identifier, messageId: 'global', data: { name: ref.identifier.name } });
        }
      },
    };
  },
};
