import { useRef } from 'react';

/**
 * Tabs as links (each tab is a place the URL names): a tab list whose arrow keys move between tabs,
 * as the ARIA practices have it; every tab also stays in the Tab order, as the links they are.
 */
export function Tabs({
  tabs,
  current,
  href,
  label,
}: {
  tabs: Array<{ id: string; title: string }>;
  current: string;
  href: (id: string) => string;
  label: string;
}) {
  const list = useRef<HTMLDivElement>(null);
  const move = (delta: number, from: number) => {
    const links = list.current?.querySelectorAll<HTMLAnchorElement>('a[role="tab"]');
    if (!links || links.length === 0) return;
    const next = links[(from + delta + links.length) % links.length];
    next.focus();
    next.click();
  };
  return (
    <div className="tabs" role="tablist" aria-label={label} ref={list}>
      {tabs.map((t, i) => (
        <a
          key={t.id}
          role="tab"
          id={`tab-${t.id}`}
          href={href(t.id)}
          aria-selected={t.id === current}
          aria-controls="tab-panel"
          onKeyDown={(e) => {
            if (e.key === 'ArrowRight') {
              e.preventDefault();
              move(1, i);
            } else if (e.key === 'ArrowLeft') {
              e.preventDefault();
              move(-1, i);
            }
          }}
        >
          {t.title}
        </a>
      ))}
    </div>
  );
}
