import { useState } from 'react';
import { Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { useFilterRobots } from '../api/jobs-query.ts';
import type { FilterChange, JobFilters } from '../filters.ts';

export interface JobFilterDialogProps {
  show: boolean;
  filters: JobFilters;
  onApply: (change: FilterChange) => void;
  onReset: () => void;
  onClose: () => void;
}

/** Spec §2 filter dialog: robot multi-select, from date, to date, OK and reset. */
export const JobFilterDialog = ({ show, filters, onApply, onReset, onClose }: JobFilterDialogProps) => {
  const { t } = useTranslation();
  return (
    <Modal show={show} onHide={onClose} centered aria-labelledby="job-filter-title">
      <Modal.Header closeButton closeLabel={t('common.close')}>
        <Modal.Title id="job-filter-title" as="h2" className="h5">
          {t('filter.title')}
        </Modal.Title>
      </Modal.Header>
      {/* Remounted on each opening, so the form starts from the address's filters. */}
      {show ? <FilterForm filters={filters} onApply={onApply} onReset={onReset} /> : null}
    </Modal>
  );
};

const FilterForm = ({ filters, onApply, onReset }: Pick<JobFilterDialogProps, 'filters' | 'onApply' | 'onReset'>) => {
  const { t } = useTranslation();
  const robots = useFilterRobots(true);
  const [robotIds, setRobotIds] = useState<string[]>(filters.robots);
  const [startDate, setStartDate] = useState(filters.startDate);
  const [endDate, setEndDate] = useState(filters.endDate ?? '');
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, index) => id === b[index]);

  const submit = () => {
    const change: FilterChange = {};
    if (startDate !== filters.startDate) change.startDate = startDate;
    if (endDate !== (filters.endDate ?? '')) change.endDate = endDate;
    if (!same(robotIds, filters.robots)) change.robots = robotIds;
    onApply(change);
  };

  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <Modal.Body>
        <Form.Group className="mb-3" controlId="job-filter-robots">
          <Form.Label>{t('filter.robots')}</Form.Label>
          <Form.Select
            multiple
            value={robotIds}
            onChange={(event) => {
              setRobotIds(Array.from(event.target.selectedOptions, (option) => option.value));
            }}
          >
            {(robots.data ?? []).map((robot) => (
              <option key={robot.robot_id} value={robot.robot_id}>
                {robot.name}
              </option>
            ))}
          </Form.Select>
        </Form.Group>
        <Form.Group className="mb-3" controlId="job-filter-from">
          <Form.Label>{t('filter.fromDate')}</Form.Label>
          <Form.Control
            type="date"
            value={startDate}
            onChange={(event) => {
              setStartDate(event.target.value);
            }}
          />
        </Form.Group>
        <Form.Group controlId="job-filter-to">
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
