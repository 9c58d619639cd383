import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZES, pageInfo } from '../filters.ts';

export interface PaginationBarProps {
  /** Undefined while the page loads: the page text waits for the server's count. */
  count: number | undefined;
  offset: number;
  limit: number;
  onOffset: (offset: number) => void;
  onLimit: (limit: number) => void;
}

export const PaginationBar = ({ count, offset, limit, onOffset, onLimit }: PaginationBarProps) => {
  const { t } = useTranslation();
  const { page, pages } = pageInfo(count ?? 0, { offset, limit });
  const known = count !== undefined;
  return (
    <nav className="d-flex flex-wrap align-items-center gap-2" aria-label={t('logTable.pagination')}>
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
      <Form.Label htmlFor="log-page-size" className="mb-0 ms-auto">
        {t('filter.pageSize')}
      </Form.Label>
      <Form.Select
        id="log-page-size"
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
