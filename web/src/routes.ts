import { useEffect, useState } from 'react';

export type Route =
  | { kind: 'store'; category: string | null; search: string }
  | { kind: 'store-app'; appId: string }
  | { kind: 'library' }
  | { kind: 'my-apps' }
  | { kind: 'submit-app' }
  | { kind: 'developer-app'; appId: string }
  | { kind: 'api-tokens' }
  | { kind: 'graphiql' }
  | { kind: 'not-found' }
  | { kind: 'review-queue' }
  | { kind: 'review-app'; appId: string }
  | { kind: 'admin' }
  | { kind: 'launcher'; appId: string; locale: string | null; theme: string | null }
  | { kind: 'webhook-logs'; query: string }
  | { kind: 'webhook-delivery'; deliveryId: string };

const LAUNCHER_PATH = /^\/apps\/([^/]+)\/open\/?$/;
const STORE_APP_PATH = /^\/store\/([^/]+)\/?$/;
const DEVELOPER_APP_PATH = /^\/developer\/apps\/([^/]+)\/?$/;
const REVIEW_APP_PATH = /^\/review\/([^/]+)\/?$/;
const WEBHOOK_DELIVERY_PATH = /^\/developer\/webhooks\/([^/]+)\/?$/;

function decodeSegment(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null; // a malformed %-escape cannot name an app
  }
}

/** The page for a URL; the pathname alone decides, the query string only refines it. */
export function routeFor({ pathname, search }: { pathname: string; search: string }): Route {
  const query = new URLSearchParams(search);
  const path = pathname.replace(/\/+$/, '') || '/';
  const launcherId = LAUNCHER_PATH.exec(pathname)?.[1];
  if (launcherId) {
    const appId = decodeSegment(launcherId);
    return appId ? { kind: 'launcher', appId, locale: query.get('locale'), theme: query.get('theme') } : { kind: 'not-found' };
  }
  const storeAppId = STORE_APP_PATH.exec(pathname)?.[1];
  if (storeAppId) {
    const appId = decodeSegment(storeAppId);
    return appId ? { kind: 'store-app', appId } : { kind: 'not-found' };
  }
  const reviewAppId = REVIEW_APP_PATH.exec(pathname)?.[1];
  if (reviewAppId) {
    const appId = decodeSegment(reviewAppId);
    return appId ? { kind: 'review-app', appId } : { kind: 'not-found' };
  }
  const developerAppId = DEVELOPER_APP_PATH.exec(pathname)?.[1];
  if (developerAppId) {
    const appId = decodeSegment(developerAppId);
    return appId ? { kind: 'developer-app', appId } : { kind: 'not-found' };
  }
  const webhookDeliveryId = WEBHOOK_DELIVERY_PATH.exec(pathname)?.[1];
  if (webhookDeliveryId) {
    const deliveryId = decodeSegment(webhookDeliveryId);
    return deliveryId ? { kind: 'webhook-delivery', deliveryId } : { kind: 'not-found' };
  }
  if (path === '/developer/webhooks') return { kind: 'webhook-logs', query: search };
  switch (path) {
    case '/':
    case '/store':
      return { kind: 'store', category: query.get('category'), search: query.get('q') ?? '' };
    case '/library':
      return { kind: 'library' };
    case '/developer':
      return { kind: 'my-apps' };
    case '/developer/new':
      return { kind: 'submit-app' };
    case '/developer/tokens':
      return { kind: 'api-tokens' };
    case '/review':
      return { kind: 'review-queue' };
    case '/admin':
      return { kind: 'admin' };
    case '/graphiql':
      return { kind: 'graphiql' };
    default:
      return { kind: 'not-found' };
  }
}

export const launcherPath = (appId: string) => `/apps/${encodeURIComponent(appId)}/open`;
export const storeAppPath = (appId: string) => `/store/${encodeURIComponent(appId)}`;
export const developerAppPath = (appId: string) => `/developer/apps/${encodeURIComponent(appId)}`;
export const webhookDeliveryPath = (deliveryId: string) => `/developer/webhooks/${encodeURIComponent(deliveryId)}`;
export const reviewAppPath = (appId: string) => `/review/${encodeURIComponent(appId)}`;

const NAVIGATED = 'plaza:navigated';

/** Client-side navigation: the server answers every GET with the SPA, so a reload lands on the same page. */
export function navigate(to: string): void {
  window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
}

export function useLocationRoute(): Route {
  const [route, setRoute] = useState(() => routeFor(window.location));
  useEffect(() => {
    const update = () => setRoute(routeFor(window.location));
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return route;
}
