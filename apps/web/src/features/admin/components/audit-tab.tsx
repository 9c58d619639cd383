import type { AuditEntry, AuditListQuery, AuditVerification } from '@uvd/contracts';
import { Fragment, useState } from 'react';
import type { ReactNode, SyntheticEvent } from 'react';
import { Button, Form, Table } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { PaginationBar } from '../../../components/pagination-bar.tsx';
import { Skeleton, SkeletonRows } from '../../../components/skeleton.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { formatDateTime, zonedInstant } from '../../../lib/format-date.ts';
import { toast } from '../../../lib/toast.ts';
import { PHONE_QUERY, useMediaQuery } from '../../../lib/use-media-query.ts';
import { saveBlob, useAuditExport } from '../api/export-audit.ts';
import type { AuditExportQuery } from '../api/export-audit.ts';
import { useAudit } from '../api/get-audit.ts';
import { useAuditVerification } from '../api/verify-audit.ts';
import { AuditDiff } from './audit-diff.tsx';

/** The search form's fields as typed; dates are calendar days (yyyy-MM-dd) in the user's timezone. */
interface AuditSearch {
  q: string;
  actor: string;
  entity: string;
  from: string;
  to: string;
}

const EMPTY_SEARCH: AuditSearch = { q: '', actor: '', entity: '', from: '', to: '' };
const AUDIT_PAGE_SIZE = 20;
/** Seconds in the audit trail's time column: two changes of one minute must be told apart. */
const AUDIT_TIME_FORMAT = 'dd.MM.yyyy hh:mm:ss a';

const text = (value: string): string | undefined => (value.trim() === '' ? undefined : value.trim());

/**
 * The filters the server reads. A day is the user's day, not UTC's: from its first instant to its last, in the
 * timezone the console shows times in.
 */
export const auditQueryOf = (search: AuditSearch, timeZone: string): AuditExportQuery => ({
  q: text(search.q),
  actor: text(search.actor),
  entity: text(search.entity),
  from_date: search.from ? zonedInstant(search.from, 0, 0, timeZone).toISOString() : undefined,
  to_date: search.to ? new Date(zonedInstant(search.to, 23, 59, timeZone).getTime() + 59_999).toISOString() : undefined,
});

const VerificationState = ({ verification, loading, failed }: { verification: AuditVerification | undefined; loading: boolean; failed: boolean }) => {
  const { t } = useTranslation();
  let body: ReactNode;
  // Whole class names: the build keeps only Bootstrap rules whose class the source names.
  let tone = 'alert alert-secondary py-2';
  if (failed) {
    tone = 'alert alert-warning py-2';
    body = t('audit.chain.error');
  } else if (loading || !verification) {
    body = (
      <>
        <Spinner size="sm" /> {t('audit.chain.checking')}
      </>
    );
  } else if (verification.ok) {
    tone = 'alert alert-success py-2';
    body = (
      <>
        <strong>{t('audit.chain.holds')}</strong> {t('audit.chain.holdsDetail', { count: verification.checked })}
      </>
    );
  } else {
    tone = 'alert alert-danger py-2';
    body = (
      <>
        <strong>{t('audit.chain.broken', { seq: verification.broken_at ?? '?' })}</strong>{' '}
        {t(`audit.chain.reason.${verification.reason ?? 'hash_mismatch'}`, { seq: verification.broken_at ?? '?' })} {t('audit.chain.brokenMeaning')}
      </>
    );
  }
  return (
    <div className={tone} role="status" data-testid="audit-chain">
      {body}
    </div>
  );
};

/** Who made the change: the user, or the robot or server the entry names (no username there). */
const useActorOf = () => {
  const { t } = useTranslation();
  return (entry: AuditEntry) => entry.actor ?? t(`audit.source.${entry.source}`);
};

/** A dash on screen, words for a screen reader. */
const Missing = ({ label }: { label: string }) => (
  <>
    <span aria-hidden="true">—</span>
    <span className="visually-hidden">{label}</span>
  </>
);

/** An entry's key: its place in the chain, or, for one the chainer has not reached yet (milliseconds), what it records. */
const entryKey = (entry: AuditEntry): string =>
  entry.seq === null ? `pending-${entry.at}-${entry.entity}-${entry.entity_id ?? ''}-${entry.operation}` : String(entry.seq);

const entityText = (entry: AuditEntry) => (entry.entity_id ? `${entry.entity} ${entry.entity_id}` : entry.entity);

/**
 * The Audit tab of the admin dashboard (issue #24 item 5): search the organization's audit trail, newest first,
 * each entry's before and after on demand, the chain's state, and an export of what the filters match.
 */
export const AuditTab = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const phone = useMediaQuery(PHONE_QUERY);
  const [draft, setDraft] = useState<AuditSearch>(EMPTY_SEARCH);
  const [search, setSearch] = useState<AuditSearch>(EMPTY_SEARCH);
  const [offset, setOffset] = useState(0);
  const [limit, setLimit] = useState(AUDIT_PAGE_SIZE);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const filters = auditQueryOf(search, timezone);
  const query: AuditListQuery = { ...filters, offset, limit };
  const audit = useAudit(query);
  const verification = useAuditVerification();
  const exporter = useAuditExport();
  const actorOf = useActorOf();
  const invalidRange = draft.from !== '' && draft.to !== '' && draft.from > draft.to;

  const rangeProps = { isInvalid: invalidRange, 'aria-invalid': invalidRange, 'aria-describedby': invalidRange ? 'audit-range-error' : undefined };

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (invalidRange) return;
    setSearch(draft);
    setOffset(0);
    setOpen(new Set());
  };
  const clear = () => {
    setDraft(EMPTY_SEARCH);
    setSearch(EMPTY_SEARCH);
    setOffset(0);
    setOpen(new Set());
  };
  const toggle = (key: string) => {
    setOpen((previous) => {
      const next = new Set(previous);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  };
  const download = async () => {
    try {
      const blob = await exporter.mutateAsync(filters);
      saveBlob(blob, `audit-${formatDateTime(new Date().toISOString(), timezone, 'yyyy-MM-dd')}.ndjson`);
      toast.success(t('audit.exported'));
    } catch {
      toast.error(t('audit.exportFailed'));
    }
  };

  const field = (name: keyof AuditSearch, label: string, type: 'search' | 'text' | 'date' = 'text', extra: Record<string, unknown> = {}) => (
    <Form.Group className={type === 'date' ? 'col-6 col-md-3 col-lg-2' : 'col-12 col-md-4 col-lg'} controlId={`audit-${name}`}>
      <Form.Label className="mb-1">{label}</Form.Label>
      <Form.Control
        type={type}
        value={draft[name]}
        autoComplete="off"
        onChange={(event) => {
          setDraft((previous) => ({ ...previous, [name]: event.target.value }));
        }}
        {...extra}
      />
    </Form.Group>
  );

  const entries = audit.data?.payload;
  const diffId = (entry: AuditEntry) => `audit-diff-${entryKey(entry).replace(/[^A-Za-z0-9-]/g, '-')}`;
  const toggleButton = (entry: AuditEntry) => (
    <Button
      variant="outline-secondary"
      size="sm"
      aria-expanded={open.has(entryKey(entry))}
      aria-controls={open.has(entryKey(entry)) ? diffId(entry) : undefined}
      onClick={() => {
        toggle(entryKey(entry));
      }}
    >
      {/* The visible words begin the accessible name (WCAG 2.5.3), which says which entry. */}
      {t(open.has(entryKey(entry)) ? 'audit.hideChanges' : 'audit.showChanges')} <span className="visually-hidden">{t('audit.ofEntry', { seq: entry.seq ?? '…' })}</span>
    </Button>
  );
  const columns: { header: string; cell: (entry: AuditEntry) => ReactNode }[] = [
    { header: t('audit.column.time'), cell: (entry) => <time dateTime={entry.at}>{formatDateTime(entry.at, timezone, AUDIT_TIME_FORMAT)}</time> },
    { header: t('audit.column.actor'), cell: actorOf },
    { header: t('audit.column.ip'), cell: (entry) => entry.ip ?? <Missing label={t('audit.unknown')} /> },
    { header: t('audit.column.request'), cell: (entry) => (entry.request ? <span className="font-monospace">{entry.request}</span> : <Missing label={t('audit.noRequest')} />) },
    { header: t('audit.column.entity'), cell: entityText },
    { header: t('audit.column.operation'), cell: (entry) => t(`audit.operation.${entry.operation}`) },
  ];

  let body: ReactNode;
  if (audit.isError) {
    body = (
      <div className="alert alert-danger" role="alert">
        {t('audit.loadError')}
      </div>
    );
  } else if (entries?.length === 0) {
    body = (
      <p className="text-center text-body-secondary py-4" data-testid="audit-empty">
        {t([search.q, search.actor, search.entity, search.from, search.to].some((value) => value.trim() !== '') ? 'audit.noMatches' : 'audit.empty')}
      </p>
    );
  } else if (phone) {
    body = (
      <ul className="list-unstyled border-top" aria-busy={audit.isFetching} aria-label={t('audit.entries')}>
        {!entries ? (
          <li className="py-2">
            <Skeleton lines={6} />
          </li>
        ) : (
          entries.map((entry) => (
            <li key={entryKey(entry)} className="py-2 border-bottom" data-testid="audit-row">
              <dl className="mb-2 text-break">
                {columns.map((column) => (
                  <div key={column.header}>
                    <dt className="d-inline fw-normal text-body-secondary">{column.header}: </dt>
                    <dd className="d-inline mb-0">{column.cell(entry)}</dd>
                  </div>
                ))}
              </dl>
              {toggleButton(entry)}
              {open.has(entryKey(entry)) ? (
                <div className="mt-2 overflow-auto">
                  <AuditDiff entry={entry} id={diffId(entry)} />
                </div>
              ) : null}
            </li>
          ))
        )}
      </ul>
    );
  } else {
    body = (
      <Table responsive hover className="align-middle">
        <caption className="visually-hidden">{t('audit.entries')}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" key={column.header}>
                {column.header}
              </th>
            ))}
            <th scope="col" className="text-end">
              <span className="visually-hidden">{t('audit.column.changes')}</span>
            </th>
          </tr>
        </thead>
        <tbody aria-busy={audit.isFetching}>
          {!entries ? (
            <SkeletonRows rows={5} columns={columns.length + 1} />
          ) : (
            entries.map((entry) => (
              <Fragment key={entryKey(entry)}>
                <tr data-testid="audit-row">
                  {columns.map((column) => (
                    <td key={column.header} className="text-break">
                      {column.cell(entry)}
                    </td>
                  ))}
                  <td className="text-end text-nowrap">{toggleButton(entry)}</td>
                </tr>
                {open.has(entryKey(entry)) ? (
                  <tr>
                    <td colSpan={columns.length + 1} className="bg-body-tertiary">
                      <AuditDiff entry={entry} id={diffId(entry)} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))
          )}
        </tbody>
      </Table>
    );
  }

  return (
    <>
      <VerificationState verification={verification.data} loading={verification.isPending} failed={verification.isError} />
      <Form noValidate onSubmit={submit} role="search" aria-label={t('audit.searchLabel')} className="mb-3">
        <div className="row g-2 align-items-end">
          {field('q', t('audit.filter.q'), 'search')}
          {field('actor', t('audit.filter.actor'))}
          {field('entity', t('audit.filter.entity'))}
          {field('from', t('audit.filter.from'), 'date', rangeProps)}
          {field('to', t('audit.filter.to'), 'date', rangeProps)}
        </div>
        {invalidRange ? (
          <div id="audit-range-error" className="invalid-feedback d-block" role="alert">
            {t('audit.filter.rangeError')}
          </div>
        ) : null}
        <div className="d-flex flex-wrap gap-2 mt-2">
          <Button type="submit" variant="primary">
            {t('common.search')}
          </Button>
          <Button variant="outline-secondary" onClick={clear}>
            {t('audit.filter.clear')}
          </Button>
          <Button variant="outline-primary" className="ms-sm-auto" disabled={exporter.isPending} onClick={() => void download()}>
            {exporter.isPending ? <Spinner size="sm" /> : null} {t('audit.export')}
          </Button>
        </div>
      </Form>
      <p className="small text-body-secondary mb-2" aria-live="polite">
        {audit.data ? t('audit.count', { count: audit.data.count }) : null}
      </p>
      {body}
      {audit.data && audit.data.count > 0 ? (
        <PaginationBar
          count={audit.data.count}
          offset={offset}
          limit={limit}
          label={t('audit.pages')}
          sizeId="audit-page-size"
          onOffset={(next) => {
            setOffset(next);
            setOpen(new Set());
          }}
          onLimit={(next) => {
            setLimit(next);
            setOffset(0);
            setOpen(new Set());
          }}
        />
      ) : null}
    </>
  );
};
