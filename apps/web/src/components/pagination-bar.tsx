import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZES, pageInfo } from '../lib/list-filters.ts';

export interface PaginationBarProps {
  /** Undefined while the page loads: the page text waits for the server's count. */
  count: number | undefined;
  offset: number;
  limit: number;
  /** Accessible name of the navigation landmark. */
  label: string;
  /** Id of the page-size select, unique on the screen. */
  sizeId: string;
  onOffset: (offset: number) => void;
  onLimit: (limit: number) => void;
}

/** Behaviour §2 pagination: previous, "page x of y", next and the page size (5, 10, 20, 50). */
export const PaginationBar = ({ count, offset, limit, label, sizeId, onOffset, onLimit }: PaginationBarProps) => {
  const { t } = useTranslation();
  const { page, pages } = pageInfo(count ?? 0, { offset, limit });
  const known = count !== undefined;
  return (
    <nav className="d-flex flex-wrap align-items-center gap-2" aria-label={label}>
      <Button
        variant="outline-secondary"
        size="sm"
        disabled={!known || page <= 1}
        onClick={() => {
          onOffset(Math.max(0, (page - 2) * limit));
        }}
      >
        {t('filter.previous')}
      </Button>
      <span aria-live="polite">{known ? t('filter.page', { page, pages }) : null}</span>
      <Button
        variant="outline-secondary"
        size="sm"
        disabled={!known || page >= pages}
        onClick={() => {
          onOffset(page * limit);
        }}
      >
        {t('filter.next')}
      </Button>
      <Form.Label htmlFor={sizeId} className="mb-0 ms-auto">
        {t('filter.pageSize')}
      </Form.Label>
      <Form.Select
        id={sizeId}
        size="sm"
        className="w-auto"
        value={limit}
        onChange={(event) => {
          onLimit(Number(event.target.value));
        }}
      >
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </Form.Select>
    </nav>
  );
};
