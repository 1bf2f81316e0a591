export type { AppReadyMessage, InitSessionMessage, PlatformSession } from '../types.js';
export { isAllowedOrigin } from '../origin.js';
export { isInitSessionMessage } from './init-session.js';
export { connectToPlatform, PlatformConnectionError, type ConnectOptions, type PlatformConnectionErrorCode, type PlatformWindow } from './connect.js';
