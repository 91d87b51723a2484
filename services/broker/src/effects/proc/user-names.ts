/**
 * A user id's name, from /etc/passwd (what the dashboard shows next to the secret entry:
 * the user a credential program runs as). Read on each ask: it is a small file and the
 * page asks once per load. A uid the file does not name (LDAP, a container's foreign id)
 * answers null and the page shows the number.
 */
import { readFileSync } from 'node:fs';

export function userNameOf(uid: number | null, path = '/etc/passwd'): string | null {
  if (uid === null) return null;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id === String(uid)) return name;
  }
  return null;
}
