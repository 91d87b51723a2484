/**
 * OAuth 2.1 for the observer and the gateway. Each (observer.sock, gateway.sock) gets the authorization-server
 * and resource-server procedures it needs: register a client, check an authorization
 * request, approve it with the operator's credentials, exchange and revoke tokens, and
 * verify an access token for its own resource. Token state lives here, in oauth.db; the
 * observer holds none. The dashboard (web.sock) gets the administration: list clients and
 * live grants, revoke by client, user or grant.
 *
 * Protocol refusals are results carrying the RFC error code; thrown errors are reserved
 * for failed sign-in (UNAUTHENTICATED, RATE_LIMITED, FORBIDDEN) and invalid tokens.
 * Codes, tokens, secrets and passwords are inputs only; they are never logged.
 */
import {
  approveAuthorizationInputSchema,
  describeAuthorizationInputSchema,
  exchangeTokenInputSchema,
  oauthRevokeClientInputSchema,
  oauthRevokeGrantInputSchema,
  oauthRevokeUserInputSchema,
  registerClientInputSchema,
  revokeTokenInputSchema,
  oauthListRevocationsInputSchema,
  verifyAccessTokenInputSchema,
} from '@terminal-mcp/contract';
import { listClients, listGrants, listRevocations, revokeClient, revokeGrant, revokeUser } from '../../oauth/admin.js';
import { approveAuthorization } from '../../oauth/authorize.js';
import { describeAuthorization, registerClient } from '../../oauth/clients.js';
import type { OAuthLoginEnv } from '../../oauth/env.js';
import { exchangeToken, revokeToken, verifyAccessToken } from '../../oauth/tokens.js';
import type { BrokerContext } from '../context.js';
import { operatorProcedure } from '../operator.js';
import { servedTo } from '../trpc.js';

/** The OAuth authorization-server procedures are served to both MCP front ends. */
const oauthServerProcedure = servedTo('observer', 'gateway');
/** Registration, approval and tokens are how an OAuth client authenticates (approval checks
 * the operator's password itself): the socket admits them. */
const oauthSignIn = oauthServerProcedure.meta({ effect: 'sign-in' });

/** The authorization server acting is the socket's: the gateway's rules and scopes on
 * gateway.sock, the observer's elsewhere (the dashboard only administers). */
const envOf = (ctx: BrokerContext): OAuthLoginEnv => ctx.deps.oauth[ctx.role === 'gateway' ? 'gateway' : 'observer'];

/** For the observer's and the gateway's routers, under `oauth.`: each socket acts as its
 * own authorization server over the one oauth.db. */
export const oauthServerProcedures = {
  registerClient: oauthSignIn.input(registerClientInputSchema).mutation(({ ctx, input }) => registerClient(envOf(ctx), input)),

  describeAuthorization: oauthServerProcedure
    .input(describeAuthorizationInputSchema)
    .query(({ ctx, input }) => describeAuthorization(envOf(ctx), input)),

  approveAuthorization: oauthSignIn
    .input(approveAuthorizationInputSchema)
    .mutation(({ ctx, input }) => approveAuthorization(envOf(ctx), input)),

  exchangeToken: oauthSignIn.input(exchangeTokenInputSchema).mutation(({ ctx, input }) => exchangeToken(envOf(ctx), input)),

  revokeToken: oauthSignIn.input(revokeTokenInputSchema).mutation(({ ctx, input }) => revokeToken(envOf(ctx), input)),

  verifyAccessToken: oauthServerProcedure
    .input(verifyAccessTokenInputSchema)
    .query(({ ctx, input }) => verifyAccessToken(envOf(ctx), ctx.deps.stores.webauth, input)),
};

/** For the dashboard's router, as `oauthAdmin`: for a signed-in operator only. */
export const oauthAdminProcedures = {
  listClients: operatorProcedure.query(({ ctx }) => listClients(envOf(ctx))),
  listGrants: operatorProcedure.query(({ ctx }) => listGrants(envOf(ctx))),
  listRevocations: operatorProcedure.input(oauthListRevocationsInputSchema).query(({ ctx, input }) => listRevocations(envOf(ctx), input.limit)),
  revokeClient: operatorProcedure.input(oauthRevokeClientInputSchema).mutation(({ ctx, input }) => revokeClient(envOf(ctx), input.clientId, ctx.actor)),
  revokeUser: operatorProcedure.input(oauthRevokeUserInputSchema).mutation(({ ctx, input }) => revokeUser(envOf(ctx), input.username, ctx.actor)),
  revokeGrant: operatorProcedure.input(oauthRevokeGrantInputSchema).mutation(({ ctx, input }) => revokeGrant(envOf(ctx), input.grantId, ctx.actor)),
};
