// The identity feature as other features see it (conventions.md 14): they import from here, never its files.
export { Account } from './account.entity.js';
export { IdentityService } from './identity.service.js';
export { SessionTokenService } from './session-tokens.service.js';

// What the wiring (app/) builds the server from: the resolver, the sign-in routes, how a request's credential is
// read (HTTP and WebSocket), and the tables' entities.
export { API_TOKEN_PREFIX } from './identity.service.js';
export { IdentityResolver } from './identity.resolver.js';
export { authRoutes } from './dev-sign-in.routes.js';
export { oidcRoutes } from './oidc.routes.js';
export { credentialOf, requestCredential } from './session-cookie.js';
export { ApiToken } from './api-token.entity.js';
export { OidcLogin } from './oidc-login.entity.js';
export { Session } from './session.entity.js';
export { SigningKey } from './signing-key.entity.js';
