import { error } from '@sveltejs/kit';
import { AUDIT_DECISIONS } from '@terminal-mcp/contract';
import { loadAudit, parseAuditFilters } from '$lib/server/audit-view.js';
import { requirePageUser } from '$lib/server/auth.js';
import { toUiError } from '$lib/server/failure.js';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = async (event) => {
  requirePageUser(event);
  const filters = parseAuditFilters(event.url.searchParams);
  try {
    return { audit: await loadAudit(filters), filters, decisions: [...AUDIT_DECISIONS], failure: null };
  } catch (err) {
    const { status, error: failure } = toUiError(err);
    if (failure.code === 'BROKER_UNAVAILABLE' || failure.code === 'AUDIT_UNAVAILABLE' || failure.code === 'INVALID_ARGUMENT') return { audit: null, filters, decisions: [...AUDIT_DECISIONS], failure };
    error(status, 'could not load the audit log');
  }
};
