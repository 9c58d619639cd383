import { useState } from 'react';
import type { ReactNode, SyntheticEvent } from 'react';
import { Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { Spinner } from '../../../components/spinner.tsx';

export interface AddField<K extends string> {
  name: K;
  /** Translated label. */
  label: string;
  /** The translated message of behaviour §5 (addUser.*Error, addContact.*Error, addGroup.nameError). */
  error: string;
  type?: 'text' | 'email' | 'password' | 'tel';
  autoComplete?: string;
}

interface AddModalProps<K extends string, S extends z.ZodType> {
  show: boolean;
  title: string;
  fields: readonly AddField<K>[];
  schema: S;
  onSubmit: (values: z.output<S>) => Promise<void>;
  onClose: () => void;
  /** Controls after the text fields whose values the caller keeps (a user's role and groups). */
  children?: ReactNode;
  /** The submit button's text; Add by default. */
  submitLabel?: string;
}

const blank = <K extends string>(fields: readonly AddField<K>[]) =>
  Object.fromEntries(fields.map((field) => [field.name, ''])) as Record<K, string>;

/**
 * The add modal of the admin dashboard: validated with the contract's schema (the server's own rules), each
 * message shown under its field by its key of behaviour §5. Whatever the outcome of the call, the modal closes.
 */
export const AddModal = <K extends string, S extends z.ZodType>({ show, title, fields, schema, onSubmit, onClose, children, submitLabel }: AddModalProps<K, S>) => {
  const { t } = useTranslation();
  const [values, setValues] = useState(() => blank(fields));
  const [errors, setErrors] = useState<Partial<Record<K, string>>>({});
  const [busy, setBusy] = useState(false);

  const close = () => {
    setValues(blank(fields));
    setErrors({});
    onClose();
  };

  const submit = async (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    const parsed = schema.safeParse(values);
    if (!parsed.success) {
      const next: Partial<Record<K, string>> = {};
      for (const issue of parsed.error.issues) {
        const field = fields.find((candidate) => candidate.name === issue.path[0]);
        if (field) next[field.name] ??= field.error;
      }
      setErrors(next);
      return;
    }
    setBusy(true);
    try {
      await onSubmit(parsed.data);
    } finally {
      setBusy(false);
      close();
    }
  };

  return (
    <Modal show={show} onHide={close} centered aria-labelledby="add-modal-title">
      <Form noValidate onSubmit={(event) => void submit(event)}>
        <Modal.Header closeButton closeLabel={t('common.close')}>
          <Modal.Title id="add-modal-title" as="h2" className="h5">
            {title}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          {fields.map((field) => {
            const id = `add-${field.name}`;
            const error = errors[field.name];
            return (
              <Form.Group className="mb-3" controlId={id} key={field.name}>
                <Form.Label>{field.label}</Form.Label>
                <Form.Control
                  type={field.type ?? 'text'}
                  value={values[field.name]}
                  autoComplete={field.autoComplete}
                  onChange={(event) => {
                    setValues((previous) => ({ ...previous, [field.name]: event.target.value }));
                  }}
                  isInvalid={Boolean(error)}
                  aria-invalid={Boolean(error)}
                  aria-describedby={error ? `${id}-error` : undefined}
                />
                <Form.Control.Feedback type="invalid" id={`${id}-error`}>
                  {error}
                </Form.Control.Feedback>
              </Form.Group>
            );
          })}
          {children}
        </Modal.Body>
        <Modal.Footer>
          <Button variant="outline-secondary" onClick={close} disabled={busy}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? <Spinner size="sm" /> : null} {submitLabel ?? t('common.add')}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
};
