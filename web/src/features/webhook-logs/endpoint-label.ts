/** An endpoint as a row or a choice names it: its host and path (the scheme is https for nearly all; the query is noise). */
export function endpointLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return url;
  }
}
