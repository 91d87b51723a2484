// Guards least privilege per role: each role's router serves exactly the broker procedures its client calls, derived from the client's source (gateway, observer, dashboard), so a served-but-unused procedure or an unserved call fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROLE_ROUTERS } from '@terminal-mcp/broker';
import { describe, expect, it } from 'vitest';
import { repoPath } from './helpers/repo.js';

type Role = keyof typeof ROLE_ROUTERS;
type Kind = 'query' | 'mutation' | 'subscription';

/** The source folders of each role's client. shared/mcp-kit holds the read tools both MCP
 * services serve; shared/oauth-http the authorization server both mount. */
const CLIENT_SOURCES: Record<Role, string[]> = {
  // The operator's lifecycle commands (terminal-mcp status|doctor|stop) probe gateway.sock.
  gateway: ['services/gateway/src', 'shared/mcp-kit/src', 'shared/oauth-http/src', 'services/broker/src/effects/launch'],
  observer: ['services/observer/src', 'shared/mcp-kit/src', 'shared/oauth-http/src'],
  web: ['web/src'],
  notifier: ['services/notifier/src'],
};

const KIND_OF_CALL: Record<string, Kind> = { query: 'query', mutate: 'mutation', subscribe: 'subscription' };

/** How the clients call the broker: `broker.a.b.query(`, `broker().a.b.mutate(`,
 * `deps.broker.a.b.query(`, `client().client.a.b.subscribe(` (the live client), and the
 * shared read tools' `sessionsOf(broker).b.query(`. */
const CALL_SHAPES: { pattern: RegExp; path: (m: RegExpExecArray) => string }[] = [
  // shared/oauth-http holds the `oauth.*` client of its server: `deps.broker.b.query(`.
  { pattern: /\bdeps\.broker\.(\w+)\.(query|mutate|subscribe)\($/, path: (m) => `oauth.${m[1]}` },
  { pattern: /(?:\bbroker(?:\(\))?|\.client)\.(\w+)\.(\w+)\.(query|mutate|subscribe)\($/, path: (m) => `${m[1]}.${m[2]}` },
  { pattern: /\bsessionsOf\(\w+\)\.(\w+)\.(query|mutate|subscribe)\($/, path: (m) => `sessions.${m[1]}` },
];
/** `.subscribe(` calls that are not broker calls: the dashboard's own live source (whose
 * broker call is the `.client.live.paneOutput.subscribe` above) and Svelte stores (the
 * attention count is one). */
const NOT_BROKER_CALLS = [/\blive(?:\(\))?\.subscribe\($/, /\bstore\.subscribe\($/, /\battention\.subscribe\($/];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|svelte)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [path] : [];
  });
}

interface ClientCalls {
  calls: Set<string>;
  /** `.query(` / `.mutate(` / `.subscribe(` sites this test cannot read: a new wrapper
   * shape must be taught to CALL_SHAPES, or the derived list would be silently short. */
  unreadable: string[];
}

function callsOf(role: Role): ClientCalls {
  const calls = new Set<string>();
  const unreadable: string[] = [];
  for (const file of CLIENT_SOURCES[role].flatMap((dir) => sourceFiles(repoPath(dir)))) {
    const text = readFileSync(file, 'utf8');
    // effects/launch/broker-probe.ts asks with a plain GET: `query(socketDir, 'a.b', ...)`.
    for (const m of text.matchAll(/\bquery\(socketDir, '(\w+)\.(\w+)'/g)) calls.add(`${m[1]}.${m[2]}:query`);
    for (const site of text.matchAll(/\.(query|mutate|subscribe)\(/g)) {
      const end = site.index + site[0].length;
      const head = text.slice(Math.max(0, end - 120), end);
      const shape = CALL_SHAPES.map((s) => ({ s, m: s.pattern.exec(head) })).find((x) => x.m !== null);
      if (shape) calls.add(`${shape.s.path(shape.m!)}:${KIND_OF_CALL[site[1]!]}`);
      else if (!NOT_BROKER_CALLS.some((p) => p.test(head))) unreadable.push(`${relative(repoPath(), file)}: ...${head.slice(-60)}`);
    }
  }
  return { calls, unreadable };
}

function servedBy(role: Role): Set<string> {
  const procedures = ROLE_ROUTERS[role]._def.procedures as unknown as Record<string, { _def: { type: Kind } }>;
  return new Set(Object.entries(procedures).map(([path, p]) => `${path}:${p._def.type}`));
}

describe('each role serves exactly what its client calls', () => {
  for (const role of Object.keys(ROLE_ROUTERS) as Role[]) {
    it(role, () => {
      const { calls, unreadable } = callsOf(role);
      expect(unreadable).toEqual([]);
      // Sanity: the derivation found the client's calls at all.
      // (the notifier makes three calls: started, claim, report)
      expect(calls.size).toBeGreaterThan(role === 'notifier' ? 2 : 5);
      const served = servedBy(role);
      const servedButNeverCalled = [...served].filter((p) => !calls.has(p)).sort();
      const calledButNotServed = [...calls].filter((p) => !served.has(p)).sort();
      expect({ servedButNeverCalled, calledButNotServed }).toEqual({ servedButNeverCalled: [], calledButNotServed: [] });
    });
  }
});
