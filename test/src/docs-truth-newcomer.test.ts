// Guards what a newcomer reads first against the code (issue 50): the README's first screen and size, the consent page's scopes and defaults, catalogue bytes per toolset set, the structured tools, the settings' defaults, the statuses /skills.md names, the store files of the capability table and docs/sources.md's opening paragraph, each derived from the code.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema, ROLE_ROUTERS, STORE_NAMES } from '@terminal-mcp/broker';
import { DEFAULT_GATEWAY_TOOLSETS, GATEWAY_TOOLSETS, resolvePaths, sessionStatusSchema } from '@terminal-mcp/contract';
import { DEFAULT_GATEWAY_HOST, DEFAULT_GATEWAY_PORT, GATEWAY_TOOLS, GatewayConfigError, startGatewayHttp } from '@terminal-mcp/gateway';
import { renderSkillMarkdown } from '@terminal-mcp/mcp-kit';
import { DEFAULT_OBSERVER_HOST, DEFAULT_OBSERVER_PORT, OBSERVER_TOOLS } from '@terminal-mcp/observer';
import { describe, expect, it } from 'vitest';
import { DEFAULT_IDLE_EXIT_SECONDS } from '../../services/broker/src/effects/launch/stdio-launch.js';
import { gatewayTokenFor, GATEWAY_TOKEN_FILE_NAME } from '../../services/broker/src/effects/launch/gateway-token-file.js';
import { GATEWAY_OAUTH_PROFILE } from '../../services/gateway/src/http/oauth-profile.js';
import { renderConsentPage } from '../../shared/oauth-http/src/consent-page.js';
import { DEFAULT_WEB_HOST, DEFAULT_WEB_PORT } from '../../web/src/lib/server/settings.js';
import { measureToolsetCombinations } from './helpers/catalogue-bytes.js';
import { repoPath } from './helpers/repo.js';
import { cleanEnv, runNode } from './helpers/run-node.js';

const read = (path: string) => readFileSync(repoPath(path), 'utf8');
const README = read('README.md');
const CHANGELOG = read('CHANGELOG.md');
const TOOLS = read('docs/tools.md');
const CONFIGURATION = read('docs/configuration.md');
const CHATGPT = read('docs/chatgpt-connector.md');
const ARCHITECTURE = read('docs/architecture.md');
const SOURCES = read('docs/sources.md');

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const word = (n: number) => WORDS[n] ?? String(n);
/** Backticked tool names in a piece of text. */
const toolNamesIn = (text: string) => [...new Set([...text.matchAll(/`([a-z0-9]+_[a-z0-9_]+)`/g)].map((m) => m[1]!))];
const sectionOf = (text: string, heading: string) => {
  const start = text.indexOf(heading);
  expect(start, heading).toBeGreaterThanOrEqual(0);
  const next = text.indexOf('\n#', start + heading.length);
  return text.slice(start, next === -1 ? undefined : next);
};

describe('the README a newcomer opens', () => {
  it('is at most 200 lines, and its first 40 hold npm start, npm test and a client connection', () => {
    const lines = README.split('\n');
    expect(lines.length).toBeLessThanOrEqual(200 + 1); // the file's last newline
    const first = lines.slice(0, 40).join('\n');
    expect(first).toMatch(/^npm start\b/m);
    expect(first).toMatch(/^npm test\b/m);
    expect(first).toMatch(/^claude mcp add .*terminal-mcp\.js"$/m);
  });

  it("the first client's command is what `terminal-mcp client-config claude-code` prints, with this checkout's paths", async () => {
    const env = cleanEnv();
    delete env.TERMINAL_MCP_STATE_DIR;
    // The README shows a user's default setup: no private tmux directory or socket name
    // (a test run sets TMUX_TMPDIR, which client-config rightly carries into the config).
    delete env.TMUX_TMPDIR;
    delete env.TERMINAL_MCP_TMUX_SOCKET;
    const printed = await runNode([repoPath('services/broker/dist/effects/launch/terminal-mcp.js'), 'client-config', 'claude-code'], env);
    const command = printed.stdout.split('\n').find((l) => l.startsWith('claude mcp add '));
    expect(command, printed.stdout).toBeDefined();
    // The README's copy runs from the checkout: $PWD for its path, the shell's node.
    const portable = command!.replace(process.execPath, '"$(command -v node)"').replace(repoPath(''), '"$PWD/').replace(/terminal-mcp\.js$/, 'terminal-mcp.js"').replace('"$PWD//', '"$PWD/');
    expect(README.split('\n')).toContain(portable);
  });

  it('moved "What changed lately" to CHANGELOG.md, in Keep a Changelog form with dated entries, newest first', () => {
    expect(README).not.toMatch(/What changed lately, for a user/);
    expect(README).toContain('[CHANGELOG.md](CHANGELOG.md)');
    const headings = [...CHANGELOG.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    expect(headings[0]).toBe('[Unreleased]');
    const dates = headings.slice(1);
    expect(dates.length).toBeGreaterThan(0);
    for (const d of dates) expect(d).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect([...dates].sort().reverse()).toEqual(dates);
  });

  it('links every doc it names, and each exists', () => {
    const linked = [...README.matchAll(/\]\(((?:docs|deploy)\/[^)#]+|CHANGELOG\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(8);
    expect(linked.filter((l) => !existsSync(repoPath(l)))).toEqual([]);
  });
});

describe('the ChatGPT consent page (docs/chatgpt-connector.md, step 4)', () => {
  /** The page the gateway renders for a client that asks for every scope. */
  const page = renderConsentPage({ profile: GATEWAY_OAUTH_PROFILE, clientName: 'ChatGPT', redirectUri: 'https://chatgpt.com/connector/oauth/x', formToken: 't', scopes: GATEWAY_OAUTH_PROFILE.scopes.map((s) => s.name) });
  const step = CHATGPT.slice(CHATGPT.indexOf('3. Click **Create / Connect**'), CHATGPT.indexOf('\n4. In a chat'));

  it('names every scope the page offers, with its label, and says which are ticked by default', () => {
    expect(step.length).toBeGreaterThan(0);
    for (const scope of GATEWAY_OAUTH_PROFILE.scopes) {
      const item = step.split('\n   - ').find((l) => l.includes(`(\`${scope.name}\`)`));
      expect(item, `docs name ${scope.name}`).toBeDefined();
      expect(item).toContain(`**${scope.label}**`);
      const box = new RegExp(`<input type="checkbox" name="[^"]*${scope.name.replace(':', '\\:')}"[^>]*>`).exec(page)?.[0];
      if (box === undefined) expect(item, `${scope.name} has no box: always granted`).toMatch(/always/);
      else if (/\bchecked\b/.test(box)) expect(item, `${scope.name} is ticked`).toMatch(/\bticked\b(?!.*unticked)/);
      else expect(item, `${scope.name} is unticked on the page`).toMatch(/unticked/);
    }
  });
});

describe('catalogue bytes per toolset set', () => {
  /** The docs give kilobytes to one decimal ("about 25.0 KB"); a description edit of a few
   * dozen bytes must not fail this, a drift like 18.5 KB for 25 KB must. */
  const near = (documentedKb: number, bytes: number) => Math.abs(documentedKb * 1000 - bytes) <= bytes * 0.03;

  it('README and docs/tools.md state the default, core-only and full catalogues as measured', async () => {
    const combos = await measureToolsetCombinations();
    const find = (sets: readonly string[]) => combos.find((c) => c.toolsets.length === sets.length && sets.every((s) => c.toolsets.includes(s as never)))!;
    const byDefault = find(DEFAULT_GATEWAY_TOOLSETS);
    const all = find(GATEWAY_TOOLSETS);
    const core = find(['core']);
    console.log(`tools/list: core ${core.bytes} B (${core.tools.length}), default ${byDefault.bytes} B (${byDefault.tools.length}; read-only ${byDefault.readOnlyBytes}), all ${all.bytes} B (${all.tools.length})`);

    const readme = /`transcripts`: (\d+) tools, about ([\d.]+) KB of `tools\/list` \(all (\w+) toolsets: (\d+) tools,\s+about ([\d.]+) KB\)/.exec(README);
    expect(readme, 'the README sentence').not.toBeNull();
    expect(Number(readme![1])).toBe(byDefault.tools.length);
    expect(near(Number(readme![2]), byDefault.bytes), `README default ${readme![2]} KB, measured ${byDefault.bytes} B`).toBe(true);
    expect(readme![3]).toBe(word(GATEWAY_TOOLSETS.length));
    expect(Number(readme![4])).toBe(all.tools.length);
    expect(near(Number(readme![5]), all.bytes), `README all ${readme![5]} KB, measured ${all.bytes} B`).toBe(true);

    const tools = /`core` alone (\d+) tools, about ([\d.]+) KB; the default \(`core`, `input`,\s+`transcripts`\) (\d+) tools, about ([\d.]+) KB \(about ([\d.]+) KB for a token without\s+`terminal:input`\); every toolset (\d+) tools, about ([\d.]+) KB/.exec(TOOLS);
    expect(tools, 'the docs/tools.md sentence').not.toBeNull();
    const [, coreN, coreKb, defN, defKb, roKb, allN, allKb] = tools!.map(Number);
    expect([coreN, defN, allN]).toEqual([core.tools.length, byDefault.tools.length, all.tools.length]);
    expect(near(coreKb!, core.bytes), `core ${coreKb} KB vs ${core.bytes} B`).toBe(true);
    expect(near(defKb!, byDefault.bytes), `default ${defKb} KB vs ${byDefault.bytes} B`).toBe(true);
    expect(near(roKb!, byDefault.readOnlyBytes), `read-only ${roKb} KB vs ${byDefault.readOnlyBytes} B`).toBe(true);
    expect(near(allKb!, all.bytes), `all ${allKb} KB vs ${all.bytes} B`).toBe(true);
  });
});

describe('structured content', () => {
  const structured = GATEWAY_TOOLS.filter((t) => t.structured).map((t) => t.name).sort();

  it('README names exactly the tools that return structuredContent, and how many', () => {
    const sentence = /`structuredContent` comes only from the (\w+) tools a client reads fields\s+of \(([^)]+)\)/.exec(README);
    expect(sentence, 'the README sentence').not.toBeNull();
    expect(sentence![1]).toBe(word(structured.length));
    expect(toolNamesIn(sentence![2]!).sort()).toEqual(structured);
  });

  it("docs/tools.md's rule names exactly those tools", () => {
    const rule = sectionOf(TOOLS, '## Structured content only where a client reads it');
    const bullets = rule.split('\n\n').find((p) => p.startsWith('- it publishes'))!;
    expect(toolNamesIn(bullets).sort()).toEqual(structured);
  });
});

describe('settings: the defaults the tables state', () => {
  /** What the code does with each variable unset, as the table must say it. */
  const state = mkdtempSync(join(tmpdir(), 'tmcp-docs-token-'));
  const derived: Record<string, () => Promise<RegExp[]> | RegExp[]> = {
    TERMINAL_MCP_CONFIG: () => [resolvePaths({}, '/home/u').configPath === undefined ? /^none\b/ : /^$/],
    TERMINAL_MCP_STATE_DIR: () => [new RegExp(`^\`${resolvePaths({ XDG_STATE_HOME: '$XDG_STATE_HOME' }, '/home/u').stateDir.replace(/\$/g, '\\$')}\``)],
    TERMINAL_MCP_SOCKET_DIR: () => [
      new RegExp(`^\`${resolvePaths({ XDG_RUNTIME_DIR: '$XDG_RUNTIME_DIR' }, '/h').socketDir.replace(/\$/g, '\\$')}\``),
      new RegExp(`else \`${resolvePaths({ TERMINAL_MCP_STATE_DIR: '<state dir>' }, '/h').socketDir}\``),
    ],
    TERMINAL_MCP_TMUX_SOCKET: () => [resolvePaths({}, '/h').tmuxSocket === undefined ? /^unset: your default tmux server/ : /^$/],
    TERMINAL_MCP_GATEWAY_PORT: () => [new RegExp(`^${DEFAULT_GATEWAY_PORT}$`)],
    TERMINAL_MCP_OBSERVER_PORT: () => [new RegExp(`^${DEFAULT_OBSERVER_PORT}$`)],
    TERMINAL_MCP_WEB_PORT: () => [new RegExp(`^${DEFAULT_WEB_PORT}$`)],
    'TERMINAL_MCP_GATEWAY_HOST`, `TERMINAL_MCP_OBSERVER_HOST`, `TERMINAL_MCP_WEB_HOST': () => {
      expect(new Set([DEFAULT_GATEWAY_HOST, DEFAULT_OBSERVER_HOST, DEFAULT_WEB_HOST]).size).toBe(1);
      return [new RegExp(`^\`${DEFAULT_GATEWAY_HOST.replace(/\./g, '\\.')}\``)];
    },
    TERMINAL_MCP_LOG_LEVEL: () => [new RegExp(`^\`${configSchema.parse({}).log_level}\``)],
    TERMINAL_MCP_BROKER_IDLE_EXIT_SECONDS: () => [new RegExp(`\\(${DEFAULT_IDLE_EXIT_SECONDS}\\)`)],
    TERMINAL_MCP_GATEWAY_TOKEN: async () => {
      // Unset: the gateway does not start open...
      const refused = await startGatewayHttp({ port: 0, env: {} }).then(
        async (gw) => (await gw.close(), undefined),
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(GatewayConfigError);
      // ...and npm start makes one, in this file.
      expect(gatewayTokenFor({}, state, true).source).toBe('file');
      return [/^unset: the gateway refuses to start\b/, new RegExp(`npm start\` makes one[^|]*${GATEWAY_TOKEN_FILE_NAME.replace('.', '\\.')}`)];
    },
  };
  /** `| \`NAME\` | default |` rows of the first table after `heading`. */
  const rows = (text: string, heading: string) => {
    const table = text.slice(text.indexOf('| variable | default |', text.indexOf(heading)));
    const lines = table.split('\n');
    return lines.slice(2, lines.findIndex((l, i) => i > 1 && !l.startsWith('|'))).map((l) => {
      const m = /^\| `(.+?)`(?: [^|]*)? \| (.*) \|$/.exec(l);
      expect(m, l).not.toBeNull();
      return [m![1]!, m![2]!] as const;
    });
  };

  it("README's table states only defaults derived here, each as the code has it", async () => {
    const table = rows(README, '## Configuration essentials');
    expect(table.length).toBeGreaterThan(5);
    for (const [name, cell] of table) {
      expect(derived[name], `README row ${name} has a derivation in this test`).toBeDefined();
      for (const re of await derived[name]!()) expect(cell, name).toMatch(re);
    }
  });

  it("docs/configuration.md's table states the derivable defaults as the code has them", async () => {
    const table = new Map(rows(CONFIGURATION, '## Environment variables'));
    for (const [name, derive] of Object.entries(derived)) {
      expect(table.has(name), `docs/configuration.md has a row for ${name}`).toBe(true);
      for (const re of await derive()) expect(table.get(name), name).toMatch(re);
    }
    rmSync(state, { recursive: true, force: true });
  });
});

describe('/skills.md', () => {
  it('names exactly the statuses terminal_status returns', () => {
    const skill = renderSkillMarkdown(GATEWAY_TOOLS, { title: 'Terminal MCP gateway' });
    const step = skill.split('\n').find((l) => l.includes('terminal_status {'));
    expect(step, skill).toBeDefined();
    const named = [...new Set([...step!.matchAll(/`([A-Z][A-Z_]{3,})`/g)].map((m) => m[1]!))];
    expect(named.sort()).toEqual([...sessionStatusSchema.options].sort());
  });
});

describe('docs/architecture.md capability table', () => {
  it('names only database files the broker opens', () => {
    const table = ARCHITECTURE.slice(ARCHITECTURE.indexOf('| folder | does | may use | stores |'));
    const rows = table.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(10);
    const named = new Set(rows.flatMap((r) => [...r.matchAll(/\b([a-z]+)\.db\b/g)].map((m) => m[1]!)));
    expect([...named].filter((n) => !STORE_NAMES.includes(n as never)).sort()).toEqual([]);
  });
});

describe("docs/sources.md's opening paragraph", () => {
  const opening = SOURCES.split('\n\n')[1]!;
  const procedures = (role: keyof typeof ROLE_ROUTERS) =>
    Object.entries(ROLE_ROUTERS[role]._def.procedures as unknown as Record<string, { _def: { type: string } }>).filter(([path]) => path.startsWith('source.'));

  it('names exactly the sockets that serve source.*, which are queries only', () => {
    const serving = (Object.keys(ROLE_ROUTERS) as (keyof typeof ROLE_ROUTERS)[]).filter((r) => procedures(r).length > 0);
    const named = [...opening.matchAll(/`([a-z]+)\.sock`/g)].map((m) => m[1]!);
    expect(named.sort()).toEqual(serving.sort());
    for (const r of serving) for (const [path, p] of procedures(r)) expect(`${path}: ${p._def.type}`).toBe(`${path}: query`);
    expect(opening).toMatch(/tRPC\s+queries/);
  });

  it('counts the observer tools that read sources', () => {
    const n = OBSERVER_TOOLS.filter((t) => t.name.startsWith('source_')).length;
    expect(opening).toContain(`${word(n)} \`source_*\``);
  });
});
