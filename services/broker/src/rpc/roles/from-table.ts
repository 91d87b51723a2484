/**
 * The gateway's and the observer's routers, generated from the operation table
 * (shared/contract operations/table.ts, issue 49): a socket serves exactly the operations
 * whose `roles` name it. The procedures' bodies stay in procedures/<capability>.ts; this
 * file only says where each path's procedure lives. Reading the table is auditing these
 * sockets' privilege (OpenSSH's monitor.c: every privileged request in one table).
 */
import { OPERATIONS, type SocketRole } from '@terminal-mcp/contract';
import { audit, bindings, catalogue, health, humanGateway, input, lifecycle, nodes, notes, oauthServerProcedures, projects, review, sessions, source, supervisor, supervisor2, wait } from '../procedures/index.js';

/** The procedures of the table's paths, by the path's first part. The dashboard's own
 * variants (dashboardInput, humanDashboard, ...) are not here: web.ts lists them. */
const PROCEDURES = {
  sessions,
  wait,
  input,
  lifecycle,
  review,
  bindings,
  audit,
  notes,
  projects,
  supervisor,
  supervisor2,
  catalogue,
  nodes,
  health,
  oauth: oauthServerProcedures,
  human: humanGateway,
  source,
} as const;
type Procedures = typeof PROCEDURES;

type Row = (typeof OPERATIONS)[number];
type PathIf<O, R> = O extends { path: infer P; roles: readonly (infer X)[] } ? (R extends X ? P : never) : never;
type PathsOf<R extends SocketRole> = PathIf<Row, R>;
type GroupOf<P> = P extends `${infer G}.${string}` ? G : never;
type NameIn<P, G extends string> = P extends `${G}.${infer N}` ? N : never;

/** The router shape of a role: `{ group: { name: procedure } }` for its rows. */
export type RoleShape<R extends SocketRole> = {
  [G in GroupOf<PathsOf<R>> & keyof Procedures]: { [N in NameIn<PathsOf<R>, G> & keyof Procedures[G]]: Procedures[G][N] };
};

/** The rows of `role` with their procedures (a path without one fails at start: a row
 * must name a procedure that exists). */
export function roleShape<R extends 'gateway' | 'observer'>(role: R): RoleShape<R> {
  const shape: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    if (!(op.roles as readonly SocketRole[]).includes(role)) continue;
    const [group, name] = op.path.split('.') as [string, string];
    const procedure = (PROCEDURES as unknown as Record<string, Record<string, unknown> | undefined>)[group]?.[name];
    if (procedure === undefined) throw new Error(`operation ${op.path} names no broker procedure`);
    (shape[group] ??= {})[name] = procedure;
  }
  return shape as RoleShape<R>;
}
