import { useState } from 'react';
import { Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { FilterChange, ListFilters } from '../lib/list-filters.ts';
import { Spinner } from './spinner.tsx';

export interface FilterRobot {
  robot_id: string;
  name: string;
}

export interface ListFilterDialogProps {
  show: boolean;
  filters: ListFilters;
  /** Undefined while the robots load. */
  robots: readonly FilterRobot[] | undefined;
  robotsError?: boolean;
  /** The jobs list picks robots in a multi-select, the logs list with checkboxes. */
  robotPicker: 'select' | 'checkboxes';
  /** Prefix of the element ids, unique on the screen. */
  idPrefix: string;
  /** Receives only the fields the user changed. */
  onApply: (change: FilterChange) => void;
  onReset: () => void;
  onClose: () => void;
}

/** Spec §2 filter dialog: robot multi-select, from date, to date, OK and reset. */
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

const FilterForm = ({
  filters,
  robots,
  robotsError = false,
  robotPicker,
  idPrefix,
  onApply,
  onReset,
}: Omit<ListFilterDialogProps, 'show' | 'onClose'>) => {
  const { t } = useTranslation();
  const [robotIds, setRobotIds] = useState<string[]>(filters.robots);
  const [startDate, setStartDate] = useState(filters.startDate);
  const [endDate, setEndDate] = useState(filters.endDate ?? '');

  const submit = () => {
    const change: FilterChange = {};
    if (startDate !== filters.startDate) change.startDate = startDate;
    if (endDate !== (filters.endDate ?? '')) change.endDate = endDate;
    if (!same(robotIds, filters.robots)) change.robots = robotIds;
    onApply(change);
  };

  const toggle = (id: string) => {
    setRobotIds((current) => (current.includes(id) ? current.filter((item) => item !== id) : [...current, id]));
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
        {robotPicker === 'select' ? (
          <Form.Group className="mb-3" controlId={`${idPrefix}-filter-robots`}>
            <Form.Label>{t('filter.robots')}</Form.Label>
            {status}
            <Form.Select
              multiple
              value={robotIds}
              onChange={(event) => {
                setRobotIds(Array.from(event.target.selectedOptions, (option) => option.value));
              }}
            >
              {(robots ?? []).map((robot) => (
                <option key={robot.robot_id} value={robot.robot_id}>
                  {robot.name}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
        ) : (
          <fieldset className="mb-3">
            <legend className="form-label fs-6">{t('filter.robots')}</legend>
            {status}
            {robots?.map((robot) => (
              <Form.Check
                key={robot.robot_id}
                id={`${idPrefix}-filter-robot-${robot.robot_id}`}
                label={robot.name}
                checked={robotIds.includes(robot.robot_id)}
                onChange={() => {
                  toggle(robot.robot_id);
                }}
              />
            ))}
          </fieldset>
        )}
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
            onChange={(event) => {
              setEndDate(event.target.value);
            }}
          />
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
