/**
 * /deliveries/create. Stable ids for the browser tests: #delivery-pickup-building/-floor/-room, the same with
 * #delivery-dropoff-…, items #delivery-item-{n}-description/-category/-quantity (n counts rows added, from 0),
 * #delivery-add-item, #delivery-priority, #delivery-recipient-search, #delivery-recipient-user, #delivery-recipient-name,
 * #delivery-deliver-by, #delivery-notes, #delivery-submit; the PIN dialog's PIN is data-testid="delivery-created-pin".
 */
import { useEffect, useState } from 'react';
import type { SyntheticEvent } from 'react';
import { Button, Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { DELIVERY_NOTES_MAX, DELIVERY_QUANTITY_MAX, DELIVERY_TEXT_MAX, DeliveryPriority, ErrorCode } from '@uvd/contracts';
import type { CreatedDelivery, DeliveryRecipient } from '@uvd/contracts';
import { PageTitle } from '../../../components/page-title.tsx';
import { Spinner } from '../../../components/spinner.tsx';
import { paths } from '../../../config/paths.ts';
import { isApiRequestError } from '../../../lib/api-error.ts';
import { useSessionUser } from '../../../lib/auth/auth-context.tsx';
import { toast } from '../../../lib/toast.ts';
import { EditorSelect } from '../../../components/select-field.tsx';
import { useDebounced } from '../../../lib/use-debounced.ts';
import { useDeliveryRecipients } from '../api/deliveries-query.ts';
import { useCreateDelivery } from '../api/delivery-commands.ts';
import { deliveryErrorText } from '../api/delivery-refusal.ts';
import {
  ITEM_CATEGORIES,
  canAddItem,
  fieldElementId,
  namedFields,
  newDeliveryValues,
  newItem,
  serverFieldErrors,
  toDeliveryInput,
  validateDelivery,
} from '../components/delivery-form.ts';
import type { DeliveryFormErrors, DeliveryFormValues, ItemRow } from '../components/delivery-form.ts';
import { PinDialog } from '../components/pin-dialog.tsx';
import { RoomPicker } from '../components/room-picker.tsx';

/** Top to bottom, so the first invalid field of a submit takes the focus. */
const firstError = (errors: DeliveryFormErrors, values: DeliveryFormValues): string | undefined =>
  ['pickup', 'dropoff', 'items', ...values.items.flatMap((item) => ['description', 'category', 'quantity'].map((part) => `items.${String(item.key)}.${part}`)), 'recipient', 'deliverBy', 'notes'].find(
    (field) => errors[field],
  );

export const DeliveryCreateRoute = () => {
  const { t } = useTranslation();
  const { timezone } = useSessionUser();
  const navigate = useNavigate();
  const create = useCreateDelivery();
  const [values, setValues] = useState<DeliveryFormValues>(newDeliveryValues);
  const [nextKey, setNextKey] = useState(1);
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<DeliveryFormErrors>({});
  const [created, setCreated] = useState<CreatedDelivery | null>(null);
  const busy = create.isPending || created !== null;
  // The first refused field takes the focus once the form is enabled again (a disabled field cannot take it).
  // An object per request, so asking for the same field again focuses it again.
  const [focusRequest, setFocusRequest] = useState<{ field: string } | null>(null);
  useEffect(() => {
    if (focusRequest && !busy) document.getElementById(fieldElementId(focusRequest.field))?.focus();
  }, [focusRequest, busy]);
  const setFocusField = (field: string) => {
    setFocusRequest({ field });
  };

  const errors: DeliveryFormErrors = { ...serverErrors, ...(submitted ? validateDelivery(values, timezone) : {}) };
  const message = (field: string) => {
    const key = errors[field];
    return key ? t(key) : undefined;
  };
  const invalid = (field: string) => {
    const text = message(field);
    return { isInvalid: Boolean(text), 'aria-invalid': Boolean(text), 'aria-describedby': text ? `${fieldElementId(field)}-error` : undefined };
  };
  const feedback = (field: string) => (
    <Form.Control.Feedback type="invalid" id={`${fieldElementId(field)}-error`}>
      {message(field)}
    </Form.Control.Feedback>
  );
  const update = (change: Partial<DeliveryFormValues>) => {
    setValues((previous) => ({ ...previous, ...change }));
    // A field the user changed after the server refused it is theirs again.
    setServerErrors({});
  };
  const updateItem = (key: number, change: Partial<ItemRow>) => {
    update({ items: values.items.map((item) => (item.key === key ? { ...item, ...change } : item)) });
  };

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    setSubmitted(true);
    setServerErrors({});
    const found = validateDelivery(values, timezone);
    const first = firstError(found, values);
    if (first) {
      setFocusField(first);
      return;
    }
    setFocusRequest(null);
    create.mutate(toDeliveryInput(values, timezone), {
      onSuccess: (delivery) => {
        setCreated(delivery);
      },
      onError: (error) => {
        if (isApiRequestError(error) && error.status === 400 && error.code === ErrorCode.validation) {
          const refused = serverFieldErrors(namedFields(error.details), values);
          setServerErrors(refused);
          const field = firstError(refused, values);
          if (field) {
            setFocusField(field);
            return;
          }
        }
        toast.error(deliveryErrorText(t, error, 'deliveries.form.saveFailed'));
      },
    });
  };

  return (
    <>
      <PageTitle title={t('placeholder.deliveryCreate')} />
      <Form noValidate onSubmit={submit} className="delivery-form">
        <RoomPicker
          idPrefix="delivery-pickup"
          legend={t('deliveries.form.pickup')}
          value={values.pickup}
          error={message('pickup')}
          disabled={busy}
          onChange={(pickup) => {
            update({ pickup });
          }}
        />
        <RoomPicker
          idPrefix="delivery-dropoff"
          legend={t('deliveries.form.dropoff')}
          value={values.dropoff}
          error={message('dropoff')}
          disabled={busy}
          onChange={(dropoff) => {
            update({ dropoff });
          }}
        />
        <fieldset className="mb-4">
          <legend className="h5">{t('deliveries.items')}</legend>
          <ol className="list-unstyled mb-2" aria-label={t('deliveries.items')}>
            {values.items.map((item, index) => {
              const base = `items.${String(item.key)}`;
              const row = t('deliveries.form.itemNumber', { number: index + 1 });
              return (
                <li key={item.key} className="card mb-2" data-testid="delivery-item-row">
                  <div className="card-body p-2 row g-2 align-items-start">
                    <Form.Group className="col-12 col-md-5" controlId={fieldElementId(`${base}.description`)}>
                      <Form.Label className="small mb-1">
                        {t('deliveries.form.description')} <span className="visually-hidden">({row})</span>
                      </Form.Label>
                      <Form.Control
                        value={item.description}
                        maxLength={DELIVERY_TEXT_MAX}
                        disabled={busy}
                        autoComplete="off"
                        onChange={(event) => {
                          updateItem(item.key, { description: event.target.value });
                        }}
                        {...invalid(`${base}.description`)}
                      />
                      {feedback(`${base}.description`)}
                    </Form.Group>
                    <Form.Group className="col-7 col-md-3" controlId={fieldElementId(`${base}.category`)}>
                      <Form.Label className="small mb-1">
                        {t('deliveries.form.category')} <span className="visually-hidden">({row})</span>
                      </Form.Label>
                      <Form.Select
                        value={item.category}
                        disabled={busy}
                        onChange={(event) => {
                          const category = ITEM_CATEGORIES.find((candidate) => candidate === event.target.value) ?? '';
                          updateItem(item.key, { category });
                        }}
                        {...invalid(`${base}.category`)}
                      >
                        <option value="">{t('jobEditor.choose')}</option>
                        {ITEM_CATEGORIES.map((category) => (
                          <option key={category} value={category}>
                            {t(`deliveries.categories.${category}`)}
                          </option>
                        ))}
                      </Form.Select>
                      {feedback(`${base}.category`)}
                    </Form.Group>
                    <Form.Group className="col-5 col-md-2" controlId={fieldElementId(`${base}.quantity`)}>
                      <Form.Label className="small mb-1">
                        {t('deliveries.form.quantity')} <span className="visually-hidden">({row})</span>
                      </Form.Label>
                      <Form.Control
                        type="number"
                        inputMode="numeric"
                        min={1}
                        max={DELIVERY_QUANTITY_MAX}
                        step={1}
                        value={item.quantity}
                        disabled={busy}
                        onChange={(event) => {
                          updateItem(item.key, { quantity: event.target.value });
                        }}
                        {...invalid(`${base}.quantity`)}
                      />
                      {feedback(`${base}.quantity`)}
                    </Form.Group>
                    <div className="col-12 col-md-2 d-flex align-items-md-end pt-md-4">
                      <Button
                        variant="outline-danger"
                        size="sm"
                        disabled={busy || values.items.length === 1}
                        onClick={() => {
                          update({ items: values.items.filter((candidate) => candidate.key !== item.key) });
                          document.getElementById('delivery-add-item')?.focus();
                        }}
                      >
                        {t('deliveries.form.removeItem')} <span className="visually-hidden">({row})</span>
                      </Button>
                    </div>
                  </div>
                </li>
              );
            })}
          </ol>
          <Button
            id="delivery-add-item"
            variant="outline-primary"
            size="sm"
            disabled={busy || !canAddItem(values)}
            aria-describedby={message('items') ? 'delivery-add-item-error' : undefined}
            onClick={() => {
              update({ items: [...values.items, newItem(nextKey)] });
              setNextKey(nextKey + 1);
            }}
          >
            {t('deliveries.form.addItem')}
          </Button>
          {message('items') ? (
            <div className="invalid-feedback d-block" id="delivery-add-item-error">
              {message('items')}
            </div>
          ) : null}
        </fieldset>
        <div className="row g-3 mb-3">
          <Form.Group className="col-md-4" controlId="delivery-priority">
            <Form.Label>{t('deliveries.priority')}</Form.Label>
            <Form.Select
              value={values.priority}
              disabled={busy}
              onChange={(event) => {
                const priority = DeliveryPriority.safeParse(event.target.value);
                if (priority.success) update({ priority: priority.data });
              }}
            >
              {DeliveryPriority.options.map((priority) => (
                <option key={priority} value={priority}>
                  {t(`deliveries.priorities.${priority}`)}
                </option>
              ))}
            </Form.Select>
          </Form.Group>
          <Form.Group className="col-md-8" controlId="delivery-deliver-by">
            <Form.Label>{t('deliveries.form.deliverBy')}</Form.Label>
            <Form.Control
              type="datetime-local"
              value={values.deliverBy}
              disabled={busy}
              onChange={(event) => {
                update({ deliverBy: event.target.value });
              }}
              {...invalid('deliverBy')}
            />
            {feedback('deliverBy')}
            <Form.Text>{t('deliveries.form.deliverByHint', { timezone })}</Form.Text>
          </Form.Group>
        </div>
        <fieldset className="mb-3">
          <legend className="h5">{t('deliveries.recipient')}</legend>
          <RecipientUser
            value={values.recipientUserId}
            disabled={busy}
            onChange={(recipientUserId) => {
              update({ recipientUserId });
            }}
          />
          {values.recipientUserId ? null : (
            <Form.Group controlId="delivery-recipient-name" className="mt-2">
              <Form.Label>{t('deliveries.form.recipientName')}</Form.Label>
              <Form.Control
                value={values.recipientName}
                maxLength={DELIVERY_TEXT_MAX}
                disabled={busy}
                autoComplete="off"
                onChange={(event) => {
                  update({ recipientName: event.target.value });
                }}
                {...invalid('recipient')}
              />
              {feedback('recipient')}
            </Form.Group>
          )}
        </fieldset>
        <Form.Group className="mb-4" controlId="delivery-notes">
          <Form.Label>{t('deliveries.notes')}</Form.Label>
          <Form.Control
            as="textarea"
            rows={3}
            value={values.notes}
            maxLength={DELIVERY_NOTES_MAX}
            disabled={busy}
            onChange={(event) => {
              update({ notes: event.target.value });
            }}
            {...invalid('notes')}
          />
          {feedback('notes')}
        </Form.Group>
        <div className="d-flex flex-wrap gap-2">
          <Button type="submit" id="delivery-submit" disabled={busy}>
            {create.isPending ? <Spinner size="sm" /> : null} {t('deliveries.form.submit')}
          </Button>
          <Link className="btn btn-outline-secondary" to={paths.deliveries.getHref()}>
            {t('jobEditor.cancel')}
          </Link>
        </div>
      </Form>
      <PinDialog
        pin={created?.pin ?? null}
        onDone={() => {
          if (created) void navigate(paths.delivery.getHref(created.delivery_id), { replace: true });
        }}
      />
    </>
  );
};

/**
 * Every sender picks the recipient among the organization's enabled users (GET /deliveries/recipients), found by
 * name or username, so the recipient gets the PIN by push; or leaves it empty and types a name. The chosen user
 * stays offered while another search shows other users.
 */
const RecipientUser = ({ value, disabled, onChange }: { value: string; disabled: boolean; onChange: (userId: string) => void }) => {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  const recipients = useDeliveryRecipients(useDebounced(search));
  const [chosen, setChosen] = useState<DeliveryRecipient | null>(null);
  const found = recipients.data?.payload;
  const offered = found && chosen && chosen.user_id === value && !found.some((recipient) => recipient.user_id === value) ? [chosen, ...found] : found;
  const count = recipients.data?.count ?? 0;
  const hint = t('deliveries.form.recipientUserHint');
  return (
    <>
      <Form.Group controlId="delivery-recipient-search" className="mb-2">
        <Form.Label>{t('deliveries.form.recipientSearch')}</Form.Label>
        <Form.Control
          type="search"
          value={search}
          maxLength={100}
          disabled={disabled}
          autoComplete="off"
          aria-controls="delivery-recipient-user"
          onChange={(event) => {
            setSearch(event.target.value);
          }}
        />
      </Form.Group>
      <EditorSelect
        id="delivery-recipient-user"
        label={t('deliveries.form.recipientUser')}
        value={value}
        choices={offered?.map((recipient) => ({
          value: recipient.user_id,
          label: recipient.name === recipient.username ? recipient.name : `${recipient.name} (${recipient.username})`,
        }))}
        loading={recipients.isPending}
        failed={recipients.isError}
        emptyText={t('deliveries.form.recipientNone')}
        hint={found && count > found.length ? `${hint} ${t('deliveries.form.recipientMore', { shown: found.length, count })}` : hint}
        disabled={disabled}
        onChange={(userId) => {
          setChosen(found?.find((recipient) => recipient.user_id === userId) ?? null);
          onChange(userId);
        }}
      />
    </>
  );
};
