import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where the browser tests write their screenshots: a temporary folder, so a test run never changes the
 * committed ones; `REFRESH_SCREENSHOTS=1 pnpm test` writes them to docs/screenshots/ for the README.
 */
export const SCREENSHOTS_DIR = process.env.REFRESH_SCREENSHOTS ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url)) : path.join(tmpdir(), 'plaza-e2e-screenshots');
