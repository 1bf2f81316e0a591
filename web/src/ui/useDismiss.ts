import { useEffect, type RefObject } from 'react';

/**
 * Closes an open popover the ways people expect, so it never covers the page: Escape (returning
 * focus to the button that opened it, so the keyboard is not lost) and a click anywhere outside it.
 */
export function useDismiss(open: boolean, close: () => void, popover: RefObject<HTMLElement | null>, opener: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!open) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== 'Escape') return;
      close();
      opener.current?.focus();
    }
    function onPointerDown(event: PointerEvent) {
      if (!popover.current?.contains(event.target as Node)) close();
    }
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, [open, close, popover, opener]);
}
