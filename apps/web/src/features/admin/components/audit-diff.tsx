import type { AuditEntry } from '@uvd/contracts';
import { Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';

export interface FieldChange {
  field: string;
  /** Undefined when the field did not exist on that side (an insert's before, a delete's after). */
  before: unknown;
  after: unknown;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fields an entry changed, in the order the record lists them: all of an insert's or a delete's, and of an
 * update only those whose value differs (a row's untouched columns would bury the one that changed).
 */
export const changedFields = (entry: Pick<AuditEntry, 'before' | 'after'>): FieldChange[] => {
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields
    .map((field) => ({ field, before: before[field], after: after[field] }))
    .filter((change) => entry.before === null || entry.after === null || !same(change.before, change.after));
};

/** A recorded value as text: strings as they are, everything else as JSON. */
export const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

interface AuditDiffProps {
  entry: AuditEntry;
  id: string;
}

/** Before and after of one entry, as a table of the changed fields: the field, what it was, what it became. */
export const AuditDiff = ({ entry, id }: AuditDiffProps) => {
  const { t } = useTranslation();
  const changes = changedFields(entry);
  const absent = <span className="text-body-secondary fst-italic">{t('audit.diff.absent')}</span>;
  if (changes.length === 0) {
    return (
      <p id={id} className="mb-0 text-body-secondary">
        {t('audit.diff.none')}
      </p>
    );
  }
  return (
    <Table id={id} size="sm" bordered className="mb-0" data-testid="audit-diff">
      <caption className="caption-top">{t('audit.diff.caption', { seq: entry.seq ?? '…' })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('audit.diff.field')}</th>
          <th scope="col">{t('audit.diff.before')}</th>
          <th scope="col">{t('audit.diff.after')}</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.field}>
            <th scope="row" className="fw-normal text-break">
              <span className="font-monospace">{change.field}</span>
            </th>
            <td className="text-break">{change.before === undefined ? absent : <del className="text-danger-emphasis">{valueText(change.before)}</del>}</td>
            <td className="text-break">{change.after === undefined ? absent : <ins className="text-success-emphasis">{valueText(change.after)}</ins>}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
};
