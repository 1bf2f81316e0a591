import express, { Router } from 'express';
import { ErrorCode } from '../../platform/errors.js';
import { sendError } from '../../platform/http-errors.js';
import type { SignInRouteDeps } from './oidc.routes.js';
import { devUserId } from './identity.service.js';
import { clearSessionCookie, requestCredential, setSessionCookie } from './session-cookie.js';

const EMAIL = /^[^@\s]{1,64}@[^@\s]{1,255}$/;

/** POST /auth/dev/sign-in (development provider) and POST /auth/sign-out. */
export function authRoutes(services: Pick<SignInRouteDeps, 'config' | 'identity'>): Router {
  const router = Router();
  const json = express.json({ limit: '16kb' });

  router.post('/auth/dev/sign-in', json, async (req, res, next) => {
    if (!services.config.authDevSignIn) {
      sendError(res, 404, ErrorCode.NOT_FOUND, 'Development sign-in is turned off on this server');
      return;
    }
    try {
      const email = typeof req.body?.email === 'string' ? req.body.email.trim().toLowerCase() : '';
      if (!EMAIL.test(email)) {
        sendError(res, 400, ErrorCode.BAD_USER_INPUT, 'email must be an e-mail address such as dev@example.com', { field: 'email' });
        return;
      }
      const { token, expiresAt, account } = await services.identity.signIn({ id: devUserId(email), email, provider: 'dev' });
      setSessionCookie(res, services.config, token, expiresAt);
      res.json({ token, expiresAt, user: { id: account.id, email: account.email, roles: services.identity.rolesOf(account) } });
    } catch (err) {
      next(err);
    }
  });

  router.post('/auth/sign-out', async (req, res, next) => {
    try {
      const token = requestCredential(req);
      if (token) await services.identity.signOut(token);
      clearSessionCookie(res, services.config);
      res.status(204).end();
    } catch (err) {
      next(err);
    }
  });

  return router;
}
