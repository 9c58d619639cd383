import { WebhookEventType } from '@uvd/contracts';
import type { CreatedWebhook } from '@uvd/contracts';
import { useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Button, Form, Modal } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { Spinner } from '../../../components/spinner.tsx';
import { useRuntimeConfig } from '../../../lib/api-context.tsx';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { createWebhookInputSchema, useCreateWebhook } from '../api/create-webhook.ts';

type WebhookField = 'url' | 'events' | 'description';
const FIELDS: readonly WebhookField[] = ['url', 'events', 'description'];
type FieldErrors = Partial<Record<WebhookField, true>>;

/** Translation keys of the events (i18next reads a dot in a key as nesting). */
export const EVENT_KEY = { 'log.created': 'logCreated', 'job.failed': 'jobFailed', 'delivery.delivered': 'deliveryDelivered' } as const satisfies Record<
  WebhookEventType,
  string
>;

/** `delivery.delivered` is an event of the logistics variant only (the contract's rule). */
export const offeredEvents = (variant: 'disinfection' | 'logistics'): WebhookEventType[] =>
  WebhookEventType.options.filter((event) => variant === 'logistics' || event !== 'delivery.delivered');

const Issues = z.object({ issues: z.array(z.object({ field: z.string() })).min(1) });
const OneField = z.object({ field: z.string() });

/** The form fields a 400 names (`details.issues[].field`, e.g. `url` or `events.0`, or `details.field`). */
export const refusedFields = (details: unknown): FieldErrors => {
  const issues = Issues.safeParse(details);
  const one = OneField.safeParse(details);
  const named = issues.success ? issues.data.issues.map((issue) => issue.field) : one.success ? [one.data.field] : [];
  const errors: FieldErrors = {};
  for (const name of named) {
    const field = FIELDS.find((candidate) => name === candidate || name.startsWith(`${candidate}.`));
    if (field) errors[field] = true;
  }
  return errors;
};

interface WebhookCreateModalProps {
  show: boolean;
  onClose: () => void;
  /** The created webhook with its secret, for the one time it is shown. */
  onCreated: (webhook: CreatedWebhook) => void;
}

const fieldId = (field: WebhookField) => `webhook-${field}`;

/**
 * Registers a webhook: its URL, the events it receives and a description, checked with the contract's schema the
 * server uses; a 400 keeps the dialog open with the named field marked in the user's language.
 */
export const WebhookCreateModal = ({ show, onClose, onCreated }: WebhookCreateModalProps) => {
  const { t } = useTranslation();
  const { variant } = useRuntimeConfig();
  const events = offeredEvents(variant);
  const create = useCreateWebhook();
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [chosen, setChosen] = useState<WebhookEventType[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failed, setFailed] = useState(false);

  const close = () => {
    setUrl('');
    setDescription('');
    setChosen([]);
    setErrors({});
    setFailed(false);
    onClose();
  };

  const focusFirst = (next: FieldErrors) => {
    const first = FIELDS.find((field) => next[field]);
    if (first) document.getElementById(first === 'events' ? `${fieldId('events')}-${events[0] ?? ''}` : fieldId(first))?.focus();
  };

  const submit = async (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFailed(false);
    const parsed = createWebhookInputSchema.safeParse({ url: url.trim(), events: chosen, description, enabled: true });
    if (!parsed.success) {
      const next: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const field = FIELDS.find((candidate) => candidate === issue.path[0]);
        if (field) next[field] = true;
      }
      setErrors(next);
      focusFirst(next);
      return;
    }
    setErrors({});
    try {
      const created = await create.mutateAsync(parsed.data);
      close();
      onCreated(created);
    } catch (error) {
      const refused = isApiRequestError(error) && error.status === 400 ? refusedFields(error.details) : {};
      if (Object.keys(refused).length > 0) {
        setErrors(refused);
        // After the re-render that enables the fields again.
        setTimeout(() => {
          focusFirst(refused);
        }, 0);
      } else setFailed(true);
    }
  };

  const invalid = (field: WebhookField) => ({
    isInvalid: errors[field] === true,
    'aria-invalid': errors[field] === true,
    'aria-describedby': errors[field] ? `${fieldId(field)}-error` : undefined,
  });
  const busy = create.isPending;

  return (
    <Modal show={show} onHide={close} centered aria-labelledby="webhook-create-title">
      <Form noValidate onSubmit={(event) => void submit(event)}>
        <Modal.Header closeButton closeLabel={t('common.close')}>
          <Modal.Title id="webhook-create-title" as="h2" className="h5">
            {t('webhooks.create.title')}
          </Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Form.Group className="mb-3" controlId={fieldId('url')}>
            <Form.Label>{t('webhooks.create.url')}</Form.Label>
            <Form.Control
              type="url"
              inputMode="url"
              autoComplete="off"
              placeholder="https://"
              value={url}
              disabled={busy}
              onChange={(change) => {
                setUrl(change.target.value);
              }}
              {...invalid('url')}
            />
            <Form.Control.Feedback type="invalid" id={`${fieldId('url')}-error`}>
              {t('webhooks.create.urlError')}
            </Form.Control.Feedback>
          </Form.Group>
          <fieldset className="mb-3" aria-describedby={errors.events ? `${fieldId('events')}-error` : undefined}>
            <legend className="form-label fs-6 mb-1">{t('webhooks.create.events')}</legend>
            {events.map((name) => (
              <Form.Check
                key={name}
                id={`${fieldId('events')}-${name}`}
                type="checkbox"
                label={
                  <>
                    {t(`webhooks.event.${EVENT_KEY[name]}`)} <span className="font-monospace small text-body-secondary">{name}</span>
                  </>
                }
                checked={chosen.includes(name)}
                disabled={busy}
                isInvalid={errors.events === true}
                onChange={(change) => {
                  const { checked } = change.target;
                  setChosen((previous) => (checked ? [...previous, name] : previous.filter((item) => item !== name)));
                }}
              />
            ))}
            {errors.events ? (
              <div className="invalid-feedback d-block" id={`${fieldId('events')}-error`}>
                {t('webhooks.create.eventsError')}
              </div>
            ) : null}
          </fieldset>
          <Form.Group controlId={fieldId('description')}>
            <Form.Label>{t('webhooks.create.description')}</Form.Label>
            <Form.Control
              type="text"
              autoComplete="off"
              maxLength={200}
              value={description}
              disabled={busy}
              onChange={(change) => {
                setDescription(change.target.value);
              }}
              {...invalid('description')}
            />
            <Form.Control.Feedback type="invalid" id={`${fieldId('description')}-error`}>
              {t('webhooks.create.descriptionError')}
            </Form.Control.Feedback>
          </Form.Group>
          {failed ? (
            <div className="alert alert-danger mt-3 mb-0" role="alert">
              {t('webhooks.notCreated')}
            </div>
          ) : null}
        </Modal.Body>
        <Modal.Footer>
          <Button variant="outline-secondary" onClick={close} disabled={busy}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? <Spinner size="sm" /> : null} {t('webhooks.create.submit')}
          </Button>
        </Modal.Footer>
      </Form>
    </Modal>
  );
};
