import { useState } from 'react';
import { Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../../components/spinner.tsx';
import { useFilterRobots } from '../api/logs-query.ts';
import type { FilterChoice, ListFilters } from '../filters.ts';

export interface LogFilterDialogProps {
  show: boolean;
  filters: ListFilters;
  onApply: (choice: FilterChoice) => void;
  onReset: () => void;
  onClose: () => void;
}

/** Spec §2 filter dialog: robot multi-select, from date, to date, OK and reset. */
export const LogFilterDialog = ({ show, filters, onApply, onReset, onClose }: LogFilterDialogProps) => {
  const { t } = useTranslation();
  const robots = useFilterRobots(show);
  const [startDate, setStartDate] = useState(filters.startDate);
  const [endDate, setEndDate] = useState(filters.endDate ?? '');
  const [selected, setSelected] = useState<string[]>(filters.robots);

  const toggle = (id: string) => {
    setSelected((current) => (current.includes(id) ? current.filter((item) => item !== id) : [...current, id]));
  };

  return (
    <Modal show={show} onHide={onClose} centered aria-labelledby="log-filter-title">
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          onApply({ startDate, endDate, robots: selected });
        }}
      >
        <Modal.Header closeButton closeLabel={t('common.close')}>
          <Modal.Title id="log-filter-title" as="h2" className="h5">
            {t('filter.title')}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <fieldset className="mb-3">
            <legend className="form-label fs-6">{t('filter.robots')}</legend>
            {robots.isPending ? <Spinner size="sm" /> : null}
            {robots.isError ? <p className="text-danger small mb-0">{t('robotTable.error')}</p> : null}
            {robots.data?.payload.map((robot) => (
              <Form.Check
                key={robot.robot_id}
                id={`log-filter-robot-${robot.robot_id}`}
                label={robot.name}
                checked={selected.includes(robot.robot_id)}
                onChange={() => {
                  toggle(robot.robot_id);
                }}
              />
            ))}
          </fieldset>
          <Form.Group className="mb-3" controlId="log-filter-from">
            <Form.Label>{t('filter.fromDate')}</Form.Label>
            <Form.Control
              type="date"
              value={startDate}
              onChange={(event) => {
                setStartDate(event.target.value);
              }}
            />
          </Form.Group>
          <Form.Group controlId="log-filter-to">
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
          <Button type="submit" variant="primary">
            {t('filter.ok')}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
};
