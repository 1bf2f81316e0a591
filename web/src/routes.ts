export type Route = { kind: 'home' } | { kind: 'launcher'; appId: string; locale: string | null; theme: string | null };

const LAUNCHER_PATH = /^\/apps\/([^/]+)\/open\/?$/;

/**
 * The page for a URL. Two pages do not need a router: `/apps/<appId>/open[?locale=vi&theme=dark]`
 * opens an app; everything else is the home page.
 */
export function routeFor({ pathname, search }: { pathname: string; search: string }): Route {
  const encodedAppId = LAUNCHER_PATH.exec(pathname)?.[1];
  if (!encodedAppId) return { kind: 'home' };
  let appId: string;
  try {
    appId = decodeURIComponent(encodedAppId);
  } catch {
    return { kind: 'home' }; // a malformed %-escape cannot name an app
  }
  const query = new URLSearchParams(search);
  return { kind: 'launcher', appId, locale: query.get('locale'), theme: query.get('theme') };
}

export const launcherPath = (appId: string) => `/apps/${encodeURIComponent(appId)}/open`;
