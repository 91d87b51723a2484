#!/usr/bin/env node
// A stand-in for a person's wrapper script: runs a command as its child in its own
// process group (as a shell script runs `npm test`), and records every signal it receives
// itself, one line each, in the log file; it survives them all. When the command ends it
// writes `exit <code> <signal>` and exits with the command's status.
//   node signal-recorder.mjs <log file> <command> [args...]
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';

const [log, command, ...args] = process.argv.slice(2);
if (!log || !command) {
  process.stderr.write('usage: signal-recorder.mjs <log file> <command> [args...]\n');
  process.exit(2);
}
writeFileSync(log, '');
// Every signal Node lets a program catch (SIGKILL and SIGSTOP cannot be; SIGCHLD is its
// own child's, SIGWINCH a terminal's resize: neither is a signal sent to stop anyone).
const CATCHABLE = ['SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGUSR1', 'SIGUSR2', 'SIGPIPE', 'SIGALRM', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU', 'SIGCONT', 'SIGVTALRM', 'SIGPROF', 'SIGXCPU', 'SIGXFSZ', 'SIGPWR', 'SIGSYS', 'SIGURG'];
for (const signal of CATCHABLE) process.on(signal, () => appendFileSync(log, `signal ${signal}\n`));

const child = spawn(command, args, { stdio: 'inherit' });
child.on('error', (err) => {
  appendFileSync(log, `exit error ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  appendFileSync(log, `exit ${code} ${signal}\n`);
  process.exit(code ?? 1);
});
