// The Vietnamese words, a chunk of their own: the build reads this export from a copy of strings.ts
// without the English table (vite.config.ts, splitLocaleStrings), so neither language carries the other.
export { vi } from './strings';
