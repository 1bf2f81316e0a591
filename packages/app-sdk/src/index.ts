// Shared by both sides and free of Node and DOM dependencies; the code lives in ./browser and ./server.
export * from './types.js';
export { isAllowedOrigin } from './origin.js';
