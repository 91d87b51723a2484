/** The operation index of docs/tools.md (between its `operations` markers), generated from
 * the table: test/src/operation-table.test.ts fails when the page and the table drift. */
import type { Operation } from './define-operation.js';
import { OPERATIONS } from './table.js';

export const OPERATION_INDEX_BEGIN = '<!-- operations:begin (generated from shared/contract/src/operations/table.ts) -->';
export const OPERATION_INDEX_END = '<!-- operations:end -->';

export function renderOperationIndex(): string {
  const rows = (OPERATIONS as readonly Operation[])
    .filter((op) => op.tool !== undefined)
    .map((op) => {
      const route = op.http ? `\`${op.http.method} /api/v1${op.http.route}\`` : '-';
      return `| \`${op.tool!.name}\` | ${op.tool!.toolset ?? 'observer'} | ${op.effect} | \`${op.path}\` | ${op.roles.join(', ')} | ${route} |`;
    });
  return [
    OPERATION_INDEX_BEGIN,
    '| tool | toolset | effect | broker procedure | sockets | HTTP route (scripts) |',
    '|---|---|---|---|---|---|',
    ...rows,
    OPERATION_INDEX_END,
  ].join('\n');
}
