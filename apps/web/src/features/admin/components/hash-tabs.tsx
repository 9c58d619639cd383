import { useRef } from 'react';
import type { KeyboardEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';

/**
 * The tab named by the location's hash, or the default tab. Choosing a tab is a history entry, so Back returns to
 * the tab before; `replace` (the arrow keys, which pass through tabs on the way) adds none.
 */
export const useHashTab = <T extends string>(tabs: readonly T[], fallback: T): [T, (tab: T, options?: { replace?: boolean }) => void] => {
  const location = useLocation();
  const navigate = useNavigate();
  const fromHash = location.hash.replace(/^#/, '');
  const current = tabs.find((tab) => tab === fromHash) ?? fallback;
  const select = (tab: T, { replace = false }: { replace?: boolean } = {}) => {
    // The tab shown already: named in the address (the default tab has no hash) without a second entry.
    if (tab === current && location.hash === `#${tab}`) return;
    void navigate({ pathname: location.pathname, search: location.search, hash: tab }, { replace: replace || tab === current });
  };
  return [current, select];
};

export const tabId = (prefix: string, tab: string) => `${prefix}-tab-${tab}`;
export const panelId = (prefix: string, tab: string) => `${prefix}-panel-${tab}`;

interface HashTabListProps<T extends string> {
  prefix: string;
  label: string;
  tabs: readonly T[];
  current: T;
  labelOf: (tab: T) => string;
  onSelect: (tab: T, options?: { replace?: boolean }) => void;
}

/** A WAI-ARIA tablist: one tab stop, arrows/Home/End move and select (automatic activation). */
export const HashTabList = <T extends string>({ prefix, label, tabs, current, labelOf, onSelect }: HashTabListProps<T>) => {
  const refs = useRef(new Map<T, HTMLButtonElement>());
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const index = tabs.indexOf(current);
    const last = tabs.length - 1;
    const next =
      event.key === 'ArrowRight'
        ? index === last
          ? 0
          : index + 1
        : event.key === 'ArrowLeft'
          ? index === 0
            ? last
            : index - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (next === null) return;
    event.preventDefault();
    const tab = tabs[next];
    if (tab === undefined) return;
    onSelect(tab, { replace: true });
    refs.current.get(tab)?.focus();
  };
  return (
    // Tabs wrap onto a second line rather than scroll: on a phone the dashboard's six would hide the last ones
    // behind a sideways scroll nobody sees.
    <ul className="nav nav-tabs mb-3 flex-wrap" role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <li className="nav-item" role="presentation" key={tab}>
          <button
            ref={(element) => {
              if (element) refs.current.set(tab, element);
              else refs.current.delete(tab);
            }}
            type="button"
            role="tab"
            id={tabId(prefix, tab)}
            // Only the selected tab's panel is rendered; pointing at a missing id is an ARIA error.
            aria-controls={tab === current ? panelId(prefix, tab) : undefined}
            aria-selected={tab === current}
            tabIndex={tab === current ? 0 : -1}
            className={tab === current ? 'nav-link active text-nowrap' : 'nav-link text-nowrap'}
            onClick={() => {
              onSelect(tab);
            }}
            onKeyDown={onKeyDown}
          >
            {labelOf(tab)}
          </button>
        </li>
      ))}
    </ul>
  );
};
