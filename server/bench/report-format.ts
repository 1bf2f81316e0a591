/** How every benchmark writes its figures in BENCHMARKS.md. */
export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
export const ratio = (n: number, base: number) => `${(n / base).toFixed(2)}x`;
export const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
export type BenchSize = 'tiny' | 'full';
