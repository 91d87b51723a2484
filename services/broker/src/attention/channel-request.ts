/** What a notification channel takes and what it is sent (pure): the kinds and minimum
 * level a channel's filter takes, and the request body and headers for a notice, as a
 * JSON POST (a generic webhook) or ntfy's format (the message as the body,
 * Title/Priority/Tags headers; ntfy.sh and compatible push servers). The broker builds
 * them; the notifier process only sends them. */
import type { Notice, NoticeLevel } from '@terminal-mcp/contract';
import type { BrokerConfig } from '../config/schema.js';

export type Channel = BrokerConfig['notifications']['channels'][number];

const LEVEL_RANK: Record<NoticeLevel, number> = { info: 0, warning: 1, urgent: 2 };
const NTFY_PRIORITY: Record<NoticeLevel, string> = { info: '3', warning: '4', urgent: '5' };

/** Whether this channel takes this notice. */
export function channelTakes(channel: Pick<Channel, 'kinds' | 'min_level'>, notice: Pick<Notice, 'kind' | 'level'>): boolean {
  if (channel.kinds !== undefined && !channel.kinds.includes(notice.kind)) return false;
  return LEVEL_RANK[notice.level] >= LEVEL_RANK[channel.min_level];
}

export function channelRequest(channel: Pick<Channel, 'format'>, notice: Notice): { headers: Record<string, string>; body: string } {
  if (channel.format === 'ntfy') {
    // Header values must be ASCII without line breaks: the session name is caller text.
    const title = `Terminal MCP: ${notice.kind.replace(/_/g, ' ')}${notice.session === null ? '' : ` in ${notice.session}`}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
    return {
      headers: { 'content-type': 'text/plain; charset=utf-8', title, priority: NTFY_PRIORITY[notice.level], tags: notice.kind },
      body: notice.message,
    };
  }
  return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'terminal-mcp', notice }) };
}
