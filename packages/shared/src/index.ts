// Free of Node and DOM dependencies: imported by the server, the web app and the app SDK alike.
export * from './app-rules.js';
export * from './readable-text.js';
export * from './session-messages.js';
export * from './webhook-payload.js';
export * from './webhook-event-schemas.js';
