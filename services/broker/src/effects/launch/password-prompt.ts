/**
 * Reading a password for the operator's CLI. On a terminal: raw mode, nothing echoed
 * (not even `*`, which would show the length), backspace and Ctrl-U edit, Ctrl-C or
 * Ctrl-D on an empty line abort, asked twice. Not on a terminal (a script or test pipes
 * it): exactly one line from stdin, so `printf '%s\n' "$pw" | terminal-mcp-webauth ...`
 * works. The password is only ever held in memory.
 */

export class PromptAbortedError extends Error {
  constructor() {
    super('aborted');
    this.name = 'PromptAbortedError';
  }
}

/** Characters, far above the password rule's own maximum; stops a runaway pipe. */
const MAX_INPUT_CHARS = 4096;

export async function readNewPassword(input: NodeJS.ReadStream, prompts: NodeJS.WriteStream): Promise<string> {
  if (!input.isTTY) return readOneLine(input);
  const first = await readHidden(input, prompts, 'New password: ');
  const second = await readHidden(input, prompts, 'Repeat the new password: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}

function readHidden(input: NodeJS.ReadStream, prompts: NodeJS.WriteStream, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let chars: string[] = [];
    const wasRaw = input.isRaw;
    const finish = (err?: Error) => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      prompts.write('\n');
      if (err) reject(err);
      else resolve(chars.join(''));
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003') return finish(new PromptAbortedError()); // Ctrl-C
        if (ch === '\u0004') {
          if (chars.length === 0) return finish(new PromptAbortedError()); // Ctrl-D
          continue;
        }
        if (ch === '\u007f' || ch === '\b') {
          chars.pop();
          continue;
        }
        if (ch === '\u0015') {
          chars = []; // Ctrl-U
          continue;
        }
        if (ch === '\u001b') break; // an escape sequence (arrow keys...): drop the rest of it
        if (ch < ' ') continue;
        if (chars.length < MAX_INPUT_CHARS) chars.push(ch);
      }
    };
    // Raw mode before the prompt: nothing typed after the prompt appears is ever echoed.
    input.setRawMode(true);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.resume();
    prompts.write(prompt);
  });
}

function readOneLine(input: NodeJS.ReadStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const done = (err: Error | null, line?: string) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
      input.pause();
      if (err) reject(err);
      else resolve(line!);
    };
    const onData = (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline >= 0) return done(null, buffered.slice(0, newline).replace(/\r$/, ''));
      if (buffered.length > MAX_INPUT_CHARS) done(new Error('the password line on stdin is too long'));
    };
    const onEnd = () => (buffered.length > 0 ? done(null, buffered.replace(/\r$/, '')) : done(new Error('no password on stdin')));
    const onError = (err: Error) => done(err);
    input.setEncoding('utf8');
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onError);
    input.resume();
  });
}
