// The English words the store's first load does not carry, a chunk of their own: the build reads this
// export from a copy of strings.ts that keeps only them (vite.config.ts, splitLocaleStrings), while the
// copy every page imports keeps only the first load's. Elsewhere (tests, development) it is the whole table.
export { en } from './strings';
