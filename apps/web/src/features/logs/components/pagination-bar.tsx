import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { PAGE_SIZES, pageInfo } from '../filters.ts';

export interface PaginationBarProps {
  count: number;
  offset: number;
  limit: number;
  onOffset: (offset: number) => void;
  onLimit: (limit: number) => void;
}

export const PaginationBar = ({ count, offset, limit, onOffset, onLimit }: PaginationBarProps) => {
  const { t } = useTranslation();
  const { page, pages } = pageInfo(count, { offset, limit });
  return (
    <nav className="d-flex flex-wrap align-items-center gap-2" aria-label={t('logTable.pagination')}>
      <Button
        variant="outline-secondary"
        size="sm"
        disabled={page <= 1}
        onClick={() => {
          onOffset(Math.max(0, (page - 2) * limit));
        }}
      >
        {t('filter.previous')}
      </Button>
      <span aria-live="polite">{t('filter.page', { page, pages })}</span>
      <Button
        variant="outline-secondary"
        size="sm"
        disabled={page >= pages}
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
