import { useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';
import { z } from 'zod';
import { activeFilterCount, applyFilterChange, applyLimit, applyOffset, clearFilters, resetFilters } from './list-filters.ts';
import type { FilterChange } from './list-filters.ts';

/**
 * A filtered, paginated list's address and its filter dialog (the jobs, logs and deliveries lists): what the
 * filter buttons, the pagination bar and the dialog do to the query string, in one place.
 */
export const useListAddress = () => {
  const [search, setSearch] = useSearchParams();
  const [filterOpen, setFilterOpen] = useState(false);
  const close = () => {
    setFilterOpen(false);
  };
  return {
    search,
    filterOpen,
    /** The Filter and Clear filters buttons' props. */
    buttons: {
      active: activeFilterCount(search),
      onOpen: () => {
        setFilterOpen(true);
      },
      onClear: () => {
        setSearch(clearFilters(search));
      },
    },
    /** The pagination bar's handlers; a new page size keeps the first row of `offset` in view. */
    paging: (offset: number) => ({
      onOffset: (next: number) => {
        setSearch(applyOffset(search, next));
      },
      onLimit: (limit: number) => {
        setSearch(applyLimit(search, limit, offset));
      },
    }),
    /** The filter dialog's handlers: OK applies what changed (and starts at the first page), reset clears all. */
    dialog: {
      show: filterOpen,
      onApply: (change: FilterChange) => {
        if (Object.keys(change).length > 0) setSearch(applyFilterChange(search, change));
        close();
      },
      onReset: () => {
        setSearch(resetFilters());
        close();
      },
      onClose: close,
    },
  };
};

/**
 * Router state of a screen opened from a list (the job editor): the list's query string, its page and filters,
 * so that leaving the screen returns to the list as it was. Parsed, not cast: state survives reloads and may be
 * anything another screen left.
 */
const ListReturnState = z.object({ listSearch: z.string().regex(/^(\?.*)?$/) });
export type ListReturnState = z.infer<typeof ListReturnState>;

export const listReturnState = (search: string): ListReturnState => ({ listSearch: search });

/** The list at `listPath` with the page and filters it was left with; the bare list when opened otherwise. */
export const useListReturn = (listPath: string): string => {
  const parsed = ListReturnState.safeParse(useLocation().state);
  return parsed.success ? `${listPath}${parsed.data.listSearch}` : listPath;
};
