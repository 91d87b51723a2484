// Derives from the source every place that can put bytes into a pane and pins them to the input attempt: tmux's load-buffer/paste-buffer/send-keys appear only in effects/tmux/deliver.ts, the delivery is made only by input/services.ts (and, for each node, effects/ssh/node-adapters.ts, reaching the attempt only through input/node-route.ts), and its writing calls (pasteText, pasteLine, pasteSubmit, pressKeys, pressEditorKeys, holdHookBuffer, exitCopyMode) are made only inside the act steps of input/send.ts, input/task.ts and input/run.ts (the dashboard's secret entry, input/secret-entry.ts, reaches them only through send.ts's pasteThenEnter, inside its own act step; the input line check, input/input-line.ts, presses the line editor's probe keys only when those act steps call it), which runInputAttempt calls after THE input authorization (input/authorize.ts). A planted call elsewhere is found (the control).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BROKER_SRC = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.testkit.ts') && !name.endsWith('.d.ts') ? [full] : [];
  });
}

const FILES = sourceFiles(BROKER_SRC).map((f) => ({ path: relative(BROKER_SRC, f), text: readFileSync(f, 'utf8') }));

/** Code only: comments say these words too. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

const TMUX_WRITES = /['"](?:load-buffer|paste-buffer|send-keys|send-prefix|set-buffer|pipe-pane|respawn-pane|run-shell)['"]/;
const DELIVERY_WRITES = /\.(?:pasteText|pasteLine|pasteSubmit|pressKeys|pressEditorKeys|holdHookBuffer|exitCopyMode)\(/;
const MAKES_DELIVERY = /\bcreatePaneDelivery\(/;

function where(files: { path: string; text: string }[], pattern: RegExp): string[] {
  return files.filter((f) => pattern.test(code(f.text))).map((f) => f.path).sort();
}

describe('every path that writes into a pane', () => {
  it('tmux commands that write into a pane appear only in the delivery', () => {
    expect(where(FILES, TMUX_WRITES)).toEqual(['effects/tmux/deliver.ts']);
  });

  it("the delivery is made once for the input services, and once per node for the node's input (handed to the attempt by input/node-route.ts only)", () => {
    expect(where(FILES, MAKES_DELIVERY)).toEqual(['effects/ssh/node-adapters.ts', 'effects/tmux/deliver.ts', 'input/services.ts']);
    expect(where(FILES, /\bnodeInputEffects\(/)).toEqual(['effects/ssh/node-adapters.ts', 'start-broker.ts']);
  });

  it('bytes are delivered only by the act steps of the input attempt (send text, keys, task, run)', () => {
    expect(where(FILES, DELIVERY_WRITES)).toEqual(['input/input-line.ts', 'input/run.ts', 'input/send.ts', 'input/task.ts']);
    // The input line check (probe keys, no text) is called only from those act steps.
    expect(where(FILES, /\bcheckLineBeforeSubmit\(/)).toEqual(['input/input-line.ts', 'input/run.ts', 'input/send.ts', 'input/task.ts']);
    // The paste-then-Enter act is shared by the sends and the secret entry, and called
    // only from act steps.
    expect(where(FILES, /\bpasteThenEnter\(/)).toEqual(['input/secret-entry.ts', 'input/send.ts']);
    for (const path of ['input/run.ts', 'input/secret-entry.ts', 'input/send.ts', 'input/task.ts']) expect(code(FILES.find((f) => f.path === path)!.text)).toContain('runInputAttempt');
    expect(code(FILES.find((f) => f.path === 'input/attempt.ts')!.text)).toMatch(/authorizeInput\(/);
  });

  it('finds a planted delivery outside the attempt (the control)', () => {
    const planted = [...FILES, { path: 'supervisor/planted.ts', text: 'export const x = (d: any) => d.pasteText("%1", "y");\n' }];
    expect(where(planted, DELIVERY_WRITES)).toContain('supervisor/planted.ts');
  });
});
