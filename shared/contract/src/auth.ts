/** Schemas of the operator-login procedures the dashboard (`auth.*` on web.sock) and the
 * observer's OAuth approval (`oauth.approveAuthorization` on observer.sock) use.
 * These are broker-internal APIs between our own processes, not MCP tools, so fields are
 * camelCase. Every string is capped: the caller is an unprivileged process. */
import { z } from 'zod';

export const AUTH_LIMITS = {
  /** Operator user names: lower-case letters, digits, dot, underscore, hyphen. */
  usernameMax: 32,
  /** What a login form may send as a name; longer names cannot exist, but the cap is
   * looser so a mistyped name is answered like any other unknown name. */
  attemptedUsernameMax: 64,
  passwordMin: 12,
  passwordMax: 256,
  /** Transport cap, above passwordMax so an over-long new password gets a clear rule
   * message instead of a schema error. */
  passwordTransportMax: 1024,
  /** Session tokens are 32 base32 characters; the cap is looser so a garbled cookie is
   * answered "no session" rather than as a schema violation. */
  tokenMax: 128,
  /** An IPv6 address with a zone id fits; the web server derives it, the broker only
   * keys throttling and logs on it. */
  sourceIpMax: 64,
} as const;

export const USERNAME_PATTERN = /^[a-z0-9._-]{1,32}$/;

export const usernameSchema = z
  .string()
  .regex(USERNAME_PATTERN, 'user name must be 1-32 characters of a-z, 0-9, ".", "_" or "-"');

const attemptedUsername = z.string().min(1).max(AUTH_LIMITS.attemptedUsernameMax);
const password = z.string().min(1).max(AUTH_LIMITS.passwordTransportMax);
const sessionToken = z.string().min(1).max(AUTH_LIMITS.tokenMax);
export const sourceIpSchema = z
  .string()
  .regex(/^[0-9A-Za-z:._%-]{1,64}$/, 'source ip must be a short address string');

export const loginInputSchema = z
  .object({ username: attemptedUsername, password, sourceIp: sourceIpSchema })
  .strict();
export type LoginInput = z.infer<typeof loginInputSchema>;

export const sessionTokenInputSchema = z.object({ token: sessionToken }).strict();
export type SessionTokenInput = z.infer<typeof sessionTokenInputSchema>;

export const changePasswordInputSchema = z
  .object({ token: sessionToken, currentPassword: password, newPassword: password, sourceIp: sourceIpSchema })
  .strict();
export type ChangePasswordInput = z.infer<typeof changePasswordInputSchema>;


export const operatorUserSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  mustChangePassword: z.boolean(),
});
export type OperatorUser = z.infer<typeof operatorUserSchema>;

/** A new login session. `token` goes into the cookie; the broker stores only its SHA-256. */
export const issuedSessionSchema = z.object({
  token: z.string(),
  /** ISO 8601; the absolute end of the session, never extended. */
  expiresAt: z.string(),
  mustChangePassword: z.boolean(),
  user: operatorUserSchema,
});
export type IssuedSession = z.infer<typeof issuedSessionSchema>;

export const validatedSessionSchema = z
  .object({ user: operatorUserSchema, expiresAt: z.string() })
  .nullable();
export type ValidatedSession = z.infer<typeof validatedSessionSchema>;

