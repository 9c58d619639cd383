import { useState } from 'react';
import type { ReactNode } from 'react';
import { Badge, Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { datesInOrder } from '../lib/list-filters.ts';
import type { FilterChange, ListFilters } from '../lib/list-filters.ts';
import { Spinner } from './spinner.tsx';

export interface FilterRobot {
  robot_id: string;
  name: string;
}

/** A choice the list can be narrowed to (a status): its value in the address and its translated label. */
export interface FilterStatus {
  value: string;
  label: string;
}

export interface ListFilterDialogProps {
  show: boolean;
  filters: ListFilters;
  /** Undefined while the robots load. */
  robots: readonly FilterRobot[] | undefined;
  robotsError?: boolean;
  /** The statuses offered as checkboxes (the jobs list), and those chosen now; none for a list without statuses. */
  statuses?: { offered: readonly FilterStatus[]; chosen: readonly string[] };
  /** Prefix of the element ids, unique on the screen. */
  idPrefix: string;
  /** Receives only the fields the user changed. */
  onApply: (change: FilterChange) => void;
  onReset: () => void;
  onClose: () => void;
}

/**
 * Behaviour §2 filter dialog: robots (checkboxes, on the jobs and logs lists alike), from date, to date, OK and reset;
 * and the statuses a list offers.
 */
export const ListFilterDialog = ({ show, onClose, idPrefix, ...form }: ListFilterDialogProps) => {
  const { t } = useTranslation();
  return (
    <Modal show={show} onHide={onClose} centered aria-labelledby={`${idPrefix}-filter-title`}>
      <Modal.Header closeButton closeLabel={t('common.close')}>
        <Modal.Title id={`${idPrefix}-filter-title`} as="h2" className="h5">
          {t('filter.title')}
        </Modal.Title>
      </Modal.Header>
      {/* Remounted on each opening, so the form starts from the address's filters. */}
      {show ? <FilterForm idPrefix={idPrefix} {...form} /> : null}
    </Modal>
  );
};

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, index) => id === b[index]);

interface CheckboxGroupProps {
  legend: string;
  idPrefix: string;
  choices: readonly FilterStatus[];
  chosen: readonly string[];
  onToggle: (value: string) => void;
  /** Shown under the legend (loading, an error). */
  children?: ReactNode;
}

/** A labelled group of checkboxes: every choice visible, each toggled on its own (no Ctrl-click to learn). */
const CheckboxGroup = ({ legend, idPrefix, choices, chosen, onToggle, children }: CheckboxGroupProps) => (
  <fieldset className="mb-3">
    <legend className="form-label fs-6">{legend}</legend>
    {children}
    {choices.map((choice) => (
      <Form.Check
        key={choice.value}
        id={`${idPrefix}-${choice.value}`}
        label={choice.label}
        checked={chosen.includes(choice.value)}
        onChange={() => {
          onToggle(choice.value);
        }}
      />
    ))}
  </fieldset>
);

const toggled = (list: readonly string[], id: string): string[] => (list.includes(id) ? list.filter((item) => item !== id) : [...list, id]);

const FilterForm = ({
  filters,
  robots,
  robotsError = false,
  statuses,
  idPrefix,
  onApply,
  onReset,
}: Omit<ListFilterDialogProps, 'show' | 'onClose'>) => {
  const { t } = useTranslation();
  const [robotIds, setRobotIds] = useState<string[]>(filters.robots);
  const [statusValues, setStatusValues] = useState<string[]>(() => [...(statuses?.chosen ?? [])]);
  const [startDate, setStartDate] = useState(filters.startDate);
  const [endDate, setEndDate] = useState(filters.endDate ?? '');
  const [checked, setChecked] = useState(false);
  const datesOk = datesInOrder(startDate, endDate);

  const submit = () => {
    setChecked(true);
    if (!datesOk) return;
    const change: FilterChange = {};
    if (startDate !== filters.startDate) change.startDate = startDate;
    if (endDate !== (filters.endDate ?? '')) change.endDate = endDate;
    if (!same(robotIds, filters.robots)) change.robots = robotIds;
    if (statuses && !same(statusValues, statuses.chosen)) change.statuses = statusValues;
    onApply(change);
  };

  const status = (
    <>
      {robots === undefined && !robotsError ? <Spinner size="sm" /> : null}
      {robotsError ? <p className="text-danger small mb-0">{t('robotTable.error')}</p> : null}
    </>
  );

  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Modal.Body>
        <CheckboxGroup
          legend={t('filter.robots')}
          idPrefix={`${idPrefix}-filter-robot`}
          choices={(robots ?? []).map((robot) => ({ value: robot.robot_id, label: robot.name }))}
          chosen={robotIds}
          onToggle={(id) => {
            setRobotIds((current) => toggled(current, id));
          }}
        >
          {status}
        </CheckboxGroup>
        {statuses ? (
          <CheckboxGroup
            legend={t('filter.statuses')}
            idPrefix={`${idPrefix}-filter-status`}
            choices={statuses.offered}
            chosen={statusValues}
            onToggle={(value) => {
              setStatusValues((current) => toggled(current, value));
            }}
          />
        ) : null}
        <Form.Group className="mb-3" controlId={`${idPrefix}-filter-from`}>
          <Form.Label>{t('filter.fromDate')}</Form.Label>
          <Form.Control
            type="date"
            value={startDate}
            onChange={(event) => {
              setStartDate(event.target.value);
            }}
          />
        </Form.Group>
        <Form.Group controlId={`${idPrefix}-filter-to`}>
          <Form.Label>{t('filter.toDate')}</Form.Label>
          <Form.Control
            type="date"
            value={endDate}
            isInvalid={checked && !datesOk}
            aria-describedby={checked && !datesOk ? `${idPrefix}-filter-dates-error` : undefined}
            onChange={(event) => {
              setEndDate(event.target.value);
            }}
          />
          <Form.Control.Feedback type="invalid" id={`${idPrefix}-filter-dates-error`} role="alert">
            {t('filter.datesOutOfOrder')}
          </Form.Control.Feedback>
        </Form.Group>
      </Modal.Body>
      <Modal.Footer>
        <Button variant="outline-secondary" onClick={onReset}>
          {t('filter.reset')}
        </Button>
        <Button type="submit">{t('filter.ok')}</Button>
      </Modal.Footer>
    </Form>
  );
};

export interface ListFilterButtonsProps {
  /** How many filters the address holds (`activeFilterCount`). */
  active: number;
  /** Prefix of the element ids, unique on the screen. */
  idPrefix: string;
  onOpen: () => void;
  onClear: () => void;
}

/**
 * The Filter button, with the number of active filters on it (read out as its description, so its name stays
 * "Filter"), and "Clear filters" while any is active.
 */
export const ListFilterButtons = ({ active, idPrefix, onOpen, onClear }: ListFilterButtonsProps) => {
  const { t } = useTranslation();
  const describedBy = `${idPrefix}-filters-active`;
  return (
    <>
      <Button variant="outline-primary" onClick={onOpen} aria-describedby={active > 0 ? describedBy : undefined}>
        {t('filter.title')}
        {active > 0 ? (
          <Badge bg="primary" pill className="ms-2" aria-hidden="true" data-testid="filter-badge">
            {active}
          </Badge>
        ) : null}
      </Button>
      {active > 0 ? (
        <>
          <span id={describedBy} className="visually-hidden">
            {t('filter.active', { count: active })}
          </span>
          <Button variant="link" onClick={onClear}>
            {t('filter.clear')}
          </Button>
        </>
      ) : null}
    </>
  );
};
