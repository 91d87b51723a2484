/**
 * Which test file a process belongs to (leak-guard.ts): the guard puts a random marker in
 * the environment of the file's worker, and every process the file starts inherits it. A
 * daemon that rewrites its process title (OpenSSH's sshd) overwrites the environment the
 * kernel shows, marker included; a file therefore also puts the tag in the name of the
 * temporary directory such a daemon is started from, and the guard finds it by its title.
 */
export const FILE_MARKER_NAME = 'TERMINAL_MCP_TEST_FILE';

export const fileTag = (marker: string): string => `-tmcp-file-${marker}-`;

/** The tag of the file running now, for a directory name; `-` outside a test file (the bench). */
export function fileTagged(): string {
  const marker = process.env[FILE_MARKER_NAME];
  return marker === undefined ? '-' : fileTag(marker);
}
