/** Operator (dashboard) accounts for end-to-end tests, created the way an operator does:
 * with the built `terminal-mcp-webauth` CLI on the broker's state directory, the password
 * piped on stdin (never in argv). */
import { spawn } from 'node:child_process';
import { repoPath } from './repo.js';

export async function createOperatorAccount(env: NodeJS.ProcessEnv, username: string, password: string): Promise<void> {
  const { status, stderr } = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [repoPath('services/broker/dist/bin/webauth-cli.js'), 'create-user', username], {
      env,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code, stderr: err }));
    child.stdin!.end(`${password}\n`);
  });
  if (status !== 0) throw new Error(`terminal-mcp-webauth create-user ${username} failed (${status}): ${stderr}`);
}
