// Guards the curl section of /skills.md (issue 49): its examples, taken from the served page and run as written by real bash and curl (the token from the real `terminal-mcp client-config http`) against a real gateway, broker and tmux, all succeed, and the typed line and the run command reach the pane.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createGatewayLogger, startGatewayHttp, type RunningGatewayHttp } from '@terminal-mcp/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrokerProcess, type BrokerProcess } from './helpers/broker-process.js';
import { repoPath } from './helpers/repo.js';
import { startTmuxServer, type TmuxTestServer } from './helpers/tmux-server.js';
import { waitFor } from './helpers/wait-for.js';

const run = promisify(execFile);
const TOKEN = 'curl-skills-token-4b8e0a';
const SESSION = 'curl-shell';
const BASH = "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile -i";

let tmux: TmuxTestServer;
let broker: BrokerProcess;
let gw: RunningGatewayHttp;

beforeAll(async () => {
  tmux = await startTmuxServer();
  broker = await startBrokerProcess({
    tmuxSocket: tmux.socketName,
    config: { log_level: 'warn', permissions: { terminal_read: true, terminal_input: true }, allowed_session_patterns: ['curl-*'], input_policy: { allowed_session_patterns: ['curl-*'] } },
  });
  gw = await startGatewayHttp({ port: 0, env: broker.env, log: createGatewayLogger('silent'), token: TOKEN });
  await tmux.newSession(SESSION, BASH, { width: 120, height: 30 });
  await waitFor(`${SESSION} prompt`, async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${SESSION}:`])).includes('$'), 20_000, 50);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await broker?.stop();
  await tmux?.kill();
}, 30_000);

/** The sh block of the curl section, as the gateway serves it. */
async function curlBlock(): Promise<string> {
  const res = await fetch(gw.mcpUrl.replace(/\/mcp$/, '/skills.md'), { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const page = await res.text();
  const section = page.slice(page.indexOf('## Without MCP: the HTTP API (curl)'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, page).toBeDefined();
  return block!;
}

describe('/skills.md curl examples', () => {
  it('run as written with real curl and the token client-config prints, every call succeeding', async () => {
    const block = await curlBlock();
    // The one line a reader edits: which session to drive.
    expect(block).toMatch(/^SESSION=main {2}#/m);
    const script = block.replace(/^SESSION=main .*$/m, `SESSION=${SESSION}`);
    const port = new URL(gw.mcpUrl).port;
    // curl prints each JSON answer without a newline: a wrapper adds one, so the answers
    // can be told apart (the examples run unchanged).
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `curl() { command curl "$@"; echo; }\n${script}`], {
      env: {
        ...broker.env,
        PATH: `${repoPath('node_modules/.bin')}:${process.env.PATH}`,
        // What `client-config http` reads: the operator's token and the gateway's port.
        TERMINAL_MCP_GATEWAY_TOKEN: TOKEN,
        TERMINAL_MCP_GATEWAY_PORT: port,
      },
      timeout: 120_000,
    });
    // One JSON answer per curl line.
    const answers = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(answers.length).toBe(block.split('\n').filter((l) => l.startsWith('curl ')).length);
    expect(JSON.stringify(answers[0])).toContain(SESSION);
    expect(JSON.stringify(answers)).toContain('ran-by-curl');
    await waitFor('typed line in the pane', async () => (await tmux.tmux(['capture-pane', '-p', '-t', `=${SESSION}:`])).includes('hello from curl'), 10_000, 50);
  }, 150_000);

  it('fails a copy with a wrong token loudly (curl -f exits 22 on the 401)', async () => {
    const block = await curlBlock();
    const first = block.split('\n').find((l) => l.startsWith('curl '))!;
    const api = /^API=(.*)$/m.exec(block)![1]!;
    const failed = await run('bash', ['-c', `TOKEN=wrong API=${api}; ${first}`]).then(
      () => 0,
      (err: { code?: number }) => err.code,
    );
    expect(failed).toBe(22);
  });
});
