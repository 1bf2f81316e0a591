import type { AnchorHTMLAttributes, MouseEvent } from 'react';
import { navigate } from '../routes';

/** An ordinary link that stays in the page; modified clicks (new tab, download) keep the browser's meaning. */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  function follow(event: MouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  }
  return <a href={href} onClick={follow} {...rest} />;
}
