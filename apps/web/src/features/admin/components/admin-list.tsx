import { useState } from 'react';
import type { ReactNode } from 'react';
import { Button, Form, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { ConfirmDialog } from '../../../components/confirm-dialog.tsx';
import { Skeleton, SkeletonRows } from '../../../components/skeleton.tsx';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/use-media-query.ts';
import { matches, useDebounced } from '../../../lib/use-debounced.ts';

export interface AdminColumn<T> {
  header: string;
  cell: (item: T) => ReactNode;
  /** Texts the search box matches. */
  text: (item: T) => string;
}

interface AdminListProps<T> {
  /** Tab name, for unique ids. */
  name: string;
  items: T[] | undefined;
  loading: boolean;
  failed: boolean;
  columns: readonly AdminColumn<T>[];
  idOf: (item: T) => string;
  labelOf: (item: T) => string;
  /** Without it the tab is read-only (robots). */
  onAdd?: () => void;
  onDelete?: (item: T) => Promise<void>;
  /** Why an item may not be deleted (one's own account): shown instead of its Delete button. */
  deleteBlockedReason?: (item: T) => string | undefined;
  extraAction?: (item: T) => ReactNode;
}

/**
 * One tab of the admin dashboard (behaviour §2): a search box debounced 500 ms, then a skeleton, "Failed to load
 * data.", a no-data message with a hint to create an item, or the table (on a phone, a list of several columns
 * as blocks of "header: value" lines). Deletes are confirmed first.
 */
export const AdminList = <T,>({
  name,
  items,
  loading,
  failed,
  columns,
  idOf,
  labelOf,
  onAdd,
  onDelete,
  deleteBlockedReason,
  extraAction,
}: AdminListProps<T>) => {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const term = useDebounced(search);
  const [pendingDelete, setPendingDelete] = useState<T | null>(null);
  const [deleting, setDeleting] = useState(false);
  const hasActions = Boolean(onDelete ?? extraAction);
  // A table of several columns does not fit a phone without breaking words apart: there each item is a block.
  const stacked = useMediaQuery(PHONE_QUERY) && columns.length > 1;
  const visible = items?.filter((item) => matches(term, ...columns.map((column) => column.text(item))));

  const confirmDelete = async () => {
    if (pendingDelete === null || !onDelete) return;
    setDeleting(true);
    try {
      await onDelete(pendingDelete);
    } finally {
      setDeleting(false);
      setPendingDelete(null);
    }
  };

  const actionsOf = (item: T) => {
    const blocked = deleteBlockedReason?.(item);
    return (
      <>
        {extraAction?.(item)}
        {blocked ? (
          // Wraps inside the actions cell, which keeps its buttons on one line.
          <span className="d-inline-block text-wrap text-start small text-body-secondary" style={{ maxWidth: '12rem' }} data-testid={`${name}-delete-blocked`}>
            {blocked}
          </span>
        ) : onDelete ? (
          <Button
            variant="outline-danger"
            size="sm"
            className="ms-2"
            aria-label={t('adminView.deleteItem', { name: labelOf(item) })}
            onClick={() => {
              setPendingDelete(item);
            }}
          >
            {t('common.delete')}
          </Button>
        ) : null}
      </>
    );
  };

  let body: ReactNode;
  if (failed) {
    body = (
      <div className="alert alert-danger" role="alert">
        {t('adminView.loadError')}
      </div>
    );
  } else if (!loading && items?.length === 0) {
    body = (
      <div className="text-center text-body-secondary py-4" data-testid="admin-nodata">
        <p className="mb-1">{t('adminView.noData')}</p>
        {onAdd ? <p className="mb-0">{t('adminView.noDataHint')}</p> : null}
      </div>
    );
  } else if (stacked) {
    body = (
      <ul className="list-unstyled border-top" aria-busy={loading}>
        {loading || !visible ? (
          <li className="py-2">
            <Skeleton lines={5} />
          </li>
        ) : visible.length === 0 ? (
          <li className="py-2 text-body-secondary">{t('adminView.noMatches')}</li>
        ) : (
          visible.map((item) => (
            <li key={idOf(item)} className="d-flex align-items-start gap-2 py-2 border-bottom" data-testid={`${name}-row`}>
              <dl className="flex-grow-1 mb-0 text-break">
                {columns.map((column) => (
                  <div key={column.header}>
                    <dt className="d-inline fw-normal text-body-secondary">{column.header}: </dt>
                    <dd className="d-inline mb-0">{column.cell(item)}</dd>
                  </div>
                ))}
              </dl>
              {/* One action under another: side by side, three of them push the last past a phone's edge. */}
              {hasActions ? <div className="admin-row-actions d-flex flex-column align-items-end gap-2 text-nowrap">{actionsOf(item)}</div> : null}
            </li>
          ))
        )}
      </ul>
    );
  } else {
    body = (
      <Table responsive hover className="align-middle">
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.header}>
                {column.header}
              </th>
            ))}
            {hasActions ? (
              <th scope="col" className="text-end">
                <span className="visually-hidden">{t('adminView.actions')}</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody aria-busy={loading}>
          {loading || !visible ? (
            <SkeletonRows rows={5} columns={columns.length + (hasActions ? 1 : 0)} />
          ) : visible.length === 0 ? (
            <tr>
              <td colSpan={columns.length + (hasActions ? 1 : 0)} className="text-body-secondary">
                {t('adminView.noMatches')}
              </td>
            </tr>
          ) : (
            visible.map((item) => (
              <tr key={idOf(item)} data-testid={`${name}-row`}>
                {columns.map((column) => (
                  <td key={column.header} className="text-break">
                    {column.cell(item)}
                  </td>
                ))}
                {hasActions ? (
                  <td className="text-end">
                    {/* One action under another: side by side, Set password and Delete push the table past a laptop's edge. */}
                    <div className="d-flex flex-column align-items-end gap-1 text-nowrap">{actionsOf(item)}</div>
                  </td>
                ) : null}
              </tr>
            ))
          )}
        </tbody>
      </Table>
    );
  }

  return (
    <>
      <div className="d-flex flex-wrap gap-2 align-items-center mb-3">
        <Form.Control
          type="search"
          className="flex-grow-1 w-auto"
          placeholder={t('adminView.search')}
          aria-label={t('adminView.search')}
          value={search}
          onChange={(event) => {
            setSearch(event.target.value);
          }}
        />
        {onAdd ? (
          <Button variant="primary" onClick={onAdd}>
            {t('common.add')}
          </Button>
        ) : null}
      </div>
      {body}
      <ConfirmDialog
        show={pendingDelete !== null}
        title={t('adminView.confirmDelete', { name: pendingDelete === null ? '' : labelOf(pendingDelete) })}
        confirmLabel={t('common.delete')}
        variant="danger"
        busy={deleting}
        onConfirm={() => void confirmDelete()}
        onCancel={() => {
          setPendingDelete(null);
        }}
      />
    </>
  );
};
