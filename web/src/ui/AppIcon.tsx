import { useState } from 'react';

interface AppIconProps {
  src: string;
  name: string;
  size: number;
  /** Empty when the app's name is written beside the icon, so screen readers do not read it twice. */
  alt?: string;
}

/**
 * An app's icon; when the developer's image cannot be loaded (a dead link, a broken certificate), the
 * app's initial on a tile of the same size keeps the page from showing a broken-image box.
 */
export function AppIcon({ src, name, size, alt = '' }: AppIconProps) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  if (failedSrc === src) {
    return (
      <span
        className="app-icon-fallback"
        role={alt ? 'img' : undefined}
        aria-label={alt || undefined}
        aria-hidden={alt ? undefined : true}
        style={{ width: size, height: size, fontSize: size / 2 }}
      >
        {Array.from(name.trim())[0]?.toUpperCase() ?? '?'}
      </span>
    );
  }
  return <img className="app-icon" src={src} alt={alt} width={size} height={size} loading="lazy" onError={() => setFailedSrc(src)} />;
}
