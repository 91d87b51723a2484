/**
 * The floor: one tmux control-mode client of our own (`tmux -C attach`), timing a
 * `capture-pane` round trip with nothing else around it — what the broker's control
 * client can do at best per read.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ControlFloor {
  run(command: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function openControlFloor(socketName: string, session: string, env: NodeJS.ProcessEnv): Promise<ControlFloor> {
  const child: ChildProcess = spawn('tmux', ['-L', socketName, '-C', 'attach-session', '-t', `=${session}`], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting: ((lines: string[]) => void)[] = [];
  let block: string[] | null = null;
  let buf = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (block === null) {
        if (line.startsWith('%begin ')) block = [];
      } else if (line.startsWith('%end ') || line.startsWith('%error ')) {
        const done = block;
        block = null;
        // The attach's own reply arrives before any command of ours: nobody waits for it.
        waiting.shift()?.(done);
      } else {
        block.push(line);
      }
    }
  });
  // Let the attach's own reply pass before the first command.
  await new Promise((r) => setTimeout(r, 300));
  return {
    run: (command) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin!.write(`${command}\n`);
      }),
    close: async () => {
      child.stdin!.end();
      await new Promise((r) => setTimeout(r, 100));
      child.kill();
    },
  };
}
