import { Router, type Request } from 'express';
import * as oidc from 'openid-client';
import { LessThan } from 'typeorm';
import { logger } from '../../platform/logger.js';
import { ErrorCode } from '../../platform/errors.js';
import { sendError } from '../../platform/http-errors.js';
import type { DataSource } from 'typeorm';
import type { Config } from '../../config.js';
import type { IdentityService } from './identity.service.js';
import { OidcLogin } from './oidc-login.entity.js';
import { setSessionCookie } from './session-cookie.js';

/** A sign-in started at the provider must come back within this time. */
const LOGIN_TTL_MS = 10 * 60 * 1000;

/** Only paths on this platform, so the callback cannot be turned into an open redirect. */
const safeReturnTo = (value: unknown) => (typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : '/');

/**
 * GET /auth/oidc/login and /auth/oidc/callback: the platform's Google-based account, through any
 * OpenID provider (authorization code flow with PKCE, state and nonce). 404 when OIDC is not configured.
 */
/** What the sign-in routes need from the process: its settings, the identity service and (for OIDC) the database. */
export interface SignInRouteDeps {
  config: Config;
  identity: IdentityService;
  db: DataSource;
}

export function oidcRoutes(services: SignInRouteDeps): Router {
  const router = Router();
  const settings = services.config.oidc;
  const redirectUri = `${services.config.platformOrigin}/auth/oidc/callback`;
  let discovered: Promise<oidc.Configuration> | undefined;

  const providerConfig = () => {
    if (!settings) throw new Error('OIDC is not configured');
    discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        settings.clientSecret,
        undefined,
        settings.allowInsecureIssuer ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((err) => {
        discovered = undefined; // try discovery again on the next sign-in instead of failing forever
        throw err;
      });
    return discovered;
  };

  router.get('/auth/oidc/login', async (req, res) => {
    if (!settings) return sendError(res, 404, ErrorCode.NOT_FOUND, 'OIDC sign-in is not configured on this platform');
    try {
      const config = await providerConfig();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const login = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier, returnTo: safeReturnTo(req.query.returnTo) };
      const logins = services.db.getRepository(OidcLogin);
      await logins.delete({ createdAt: LessThan(new Date(Date.now() - LOGIN_TTL_MS)) });
      await logins.insert(login);
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state: login.state,
        nonce: login.nonce,
      });
      res.redirect(302, url.href);
    } catch (err) {
      logger.error({ err }, 'OIDC sign-in could not start');
      // 502: the provider, not Plaza or the request, is at fault; the code is the contract's nearest.
      sendError(res, 502, ErrorCode.INTERNAL_SERVER_ERROR, 'The sign-in provider is not reachable right now; try again shortly');
    }
  });

  router.get('/auth/oidc/callback', async (req: Request, res) => {
    if (!settings) return sendError(res, 404, ErrorCode.NOT_FOUND, 'OIDC sign-in is not configured on this platform');
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    const logins = services.db.getRepository(OidcLogin);
    const login = state ? await logins.findOneBy({ state }) : null;
    if (!login || Date.now() - login.createdAt.getTime() > LOGIN_TTL_MS)
      return sendError(res, 400, ErrorCode.BAD_USER_INPUT, 'This sign-in link is unknown or has expired; start again', { field: 'state' });
    await logins.delete({ state }); // a state is good for one callback only
    try {
      const config = await providerConfig();
      const tokens = await oidc.authorizationCodeGrant(config, new URL(req.originalUrl, services.config.platformOrigin), {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims?.sub) return sendError(res, 400, ErrorCode.BAD_USER_INPUT, 'The provider did not say who you are');
      // Many providers return scope claims such as email only from UserInfo, not in the ID token (OIDC Core 5.4).
      const profile = typeof claims.email === 'string' ? claims : await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      const email = typeof profile.email === 'string' ? profile.email : undefined;
      if (!email) return sendError(res, 400, ErrorCode.BAD_USER_INPUT, 'The provider did not share your e-mail address; allow the email scope and try again');
      if (profile.email_verified === false || profile.email_verified === 'false')
        return sendError(res, 403, ErrorCode.FORBIDDEN, 'Your e-mail address is not verified with the provider');
      const { token, expiresAt } = await services.identity.signIn({ id: claims.sub, email, provider: 'oidc' });
      setSessionCookie(res, services.config, token, expiresAt);
      res.redirect(302, login.returnTo);
    } catch (err) {
      logger.warn({ err }, 'OIDC callback refused');
      sendError(res, 400, ErrorCode.BAD_USER_INPUT, 'The sign-in could not be completed; start again');
    }
  });

  return router;
}
