/**
 * What makes one authorization server different from the other: the name of its
 * resource, what its consent page asks, and its scopes. The observer has one scope
 * (reading); the gateway has reading and input, and the operator may approve reading only.
 * The broker decides the granted scope again (oauth/policy.ts); this side only renders
 * the choice and relays it.
 */

export interface ScopeDescription {
  name: string;
  /** Short, for the consent page's list. */
  label: string;
  /** What the client can do with it, in plain words. */
  detail: string;
}

export interface OAuthResourceProfile {
  /** RFC 9728 `resource_name`. */
  resourceName: string;
  /** Completes the consent heading "Allow “client” to ...?". */
  consentAsk: string;
  /** One sentence under the scopes: what the client can never do here. */
  consentLimits: string;
  /** The first scope is always granted (everything builds on reading); the operator may
   * leave any other out. */
  scopes: readonly [ScopeDescription, ...ScopeDescription[]];
}

const names = (p: OAuthResourceProfile) => p.scopes.map((s) => s.name);

/** The scopes a request asks for, as the page shows them: the known ones named in
 * `scope`, or all of this server's when none is named; reading always. */
export function requestedScopes(scopeParam: string | undefined, profile: OAuthResourceProfile): string[] {
  const all = names(profile);
  const asked = (scopeParam ?? '').split(' ').filter((s) => all.includes(s));
  if (asked.length === 0) return all;
  return all.filter((s) => s === all[0] || asked.includes(s));
}

/** The form field of an optional scope's checkbox. */
export const scopeField = (scope: string) => `grant.${scope}`;

/** What the operator approved: reading, plus each requested optional scope whose box was
 * left ticked. */
export function approvedScope(requested: readonly string[], form: { get(name: string): string | undefined }, profile: OAuthResourceProfile): string {
  const first = profile.scopes[0].name;
  return requested.filter((s) => s === first || form.get(scopeField(s)) === 'on').join(' ');
}
