import { DELIVERY_ITEMS_MAX, DELIVERY_NOTES_MAX, DELIVERY_QUANTITY_MAX, DELIVERY_TEXT_MAX, DeliveryItem, ItemCategory } from '@uvd/contracts';
import type { DeliveryInput, DeliveryPriority } from '@uvd/contracts';
import type { ParseKeys } from 'i18next';
import { z } from 'zod';
import { zonedInstant } from '../../../lib/format-date.ts';

/** A room picked by building, floor and room ('' = nothing chosen yet). */
export interface RoomChoice {
  buildingId: string;
  floorId: string;
  roomId: string;
}

export interface ItemRow {
  /** Stable across removals, for React keys and element ids. */
  key: number;
  description: string;
  category: ItemCategory | '';
  quantity: string;
}

export interface DeliveryFormValues {
  pickup: RoomChoice;
  dropoff: RoomChoice;
  items: ItemRow[];
  priority: DeliveryPriority;
  /** A user of the organization ('' = none chosen: the name below is used). */
  recipientUserId: string;
  recipientName: string;
  /** yyyy-MM-ddTHH:mm in the user's timezone, '' for none. */
  deliverBy: string;
  notes: string;
}

export const EMPTY_ROOM: RoomChoice = { buildingId: '', floorId: '', roomId: '' };

export const newItem = (key: number): ItemRow => ({ key, description: '', category: '', quantity: '1' });

export const newDeliveryValues = (): DeliveryFormValues => ({
  pickup: EMPTY_ROOM,
  dropoff: EMPTY_ROOM,
  items: [newItem(0)],
  priority: 'routine',
  recipientUserId: '',
  recipientName: '',
  deliverBy: '',
  notes: '',
});

/**
 * A field's error key: `pickup`, `dropoff`, `items` (the list as a whole), `items.{key}.description|category|quantity`
 * (by the row's stable key), `recipient`, `deliverBy`, `notes`.
 */
export type DeliveryFormErrors = Partial<Record<string, ParseKeys>>;

/** The element a field's error belongs to, so a submit can focus the first one. */
export const fieldElementId = (field: string): string => {
  const item = /^items\.(\d+)\.(\w+)$/.exec(field);
  if (item) return `delivery-item-${item[1] ?? ''}-${item[2] ?? ''}`;
  const ids: Record<string, string> = {
    pickup: 'delivery-pickup-room',
    dropoff: 'delivery-dropoff-room',
    items: 'delivery-add-item',
    recipient: 'delivery-recipient-name',
    deliverBy: 'delivery-deliver-by',
    notes: 'delivery-notes',
  };
  return ids[field] ?? 'delivery-submit';
};

const DATETIME_LOCAL = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/;

/** The instant of the deliver-by field in the user's timezone, or null when it is empty or malformed. */
export const deliverByInstant = (text: string, timeZone: string): Date | null => {
  const match = DATETIME_LOCAL.exec(text);
  if (!match?.[1]) return null;
  const instant = zonedInstant(match[1], Number(match[2]), Number(match[3]), timeZone);
  return Number.isNaN(instant.getTime()) ? null : instant;
};

const quantityOf = (text: string): number | null => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : null);

/** The server's rules, checked before sending: both rooms, not the same room, items, quantity, a future deliver-by. */
export const validateDelivery = (values: DeliveryFormValues, timeZone: string, now: Date = new Date()): DeliveryFormErrors => {
  const errors: DeliveryFormErrors = {};
  if (!values.pickup.roomId) errors.pickup = 'validation.required';
  if (!values.dropoff.roomId) errors.dropoff = 'validation.required';
  else if (values.dropoff.roomId === values.pickup.roomId) errors.dropoff = 'deliveries.form.errors.sameRoom';
  if (values.items.length === 0) errors.items = 'deliveries.form.errors.noItems';
  for (const item of values.items) {
    const description = item.description.trim();
    if (!description) errors[`items.${String(item.key)}.description`] = 'validation.required';
    else if (description.length > DELIVERY_TEXT_MAX) errors[`items.${String(item.key)}.description`] = 'deliveries.form.errors.tooLong';
    if (!item.category) errors[`items.${String(item.key)}.category`] = 'validation.required';
    const quantity = quantityOf(item.quantity);
    if (quantity === null || quantity < 1 || quantity > DELIVERY_QUANTITY_MAX) errors[`items.${String(item.key)}.quantity`] = 'deliveries.form.errors.quantity';
  }
  if (values.recipientName.trim().length > DELIVERY_TEXT_MAX) errors.recipient = 'deliveries.form.errors.tooLong';
  if (values.deliverBy) {
    const instant = deliverByInstant(values.deliverBy, timeZone);
    if (!instant) errors.deliverBy = 'validation.invalidDate';
    else if (instant.getTime() <= now.getTime()) errors.deliverBy = 'deliveries.form.errors.deliverByPast';
  }
  if (values.notes.length > DELIVERY_NOTES_MAX) errors.notes = 'deliveries.form.errors.tooLong';
  return errors;
};

/** The request of a valid form (validateDelivery found nothing). */
export const toDeliveryInput = (values: DeliveryFormValues, timeZone: string): DeliveryInput => {
  const deliverBy = values.deliverBy ? deliverByInstant(values.deliverBy, timeZone) : null;
  const name = values.recipientName.trim();
  return {
    pickup_room_id: values.pickup.roomId,
    dropoff_room_id: values.dropoff.roomId,
    items: values.items.map((item) =>
      DeliveryItem.parse({ description: item.description.trim(), category: item.category, quantity: quantityOf(item.quantity) }),
    ),
    priority: values.priority,
    ...(values.recipientUserId ? { recipient_user_id: values.recipientUserId } : name ? { recipient_name: name } : {}),
    ...(deliverBy ? { deliver_by: deliverBy.toISOString() } : {}),
    ...(values.notes.trim() ? { notes: values.notes } : {}),
  };
};

export const canAddItem = (values: DeliveryFormValues): boolean => values.items.length < DELIVERY_ITEMS_MAX;

// ---- the server's 400s, on the field they name ----------------------------------------------------------------

const Issues = z.object({ issues: z.array(z.object({ field: z.string() })).min(1) });
const OneField = z.object({ field: z.string() });

/** The request fields a 400's details name (`{ issues: [{ field }] }` or `{ field }`). */
export const namedFields = (details: unknown): string[] => {
  const issues = Issues.safeParse(details);
  if (issues.success) return issues.data.issues.map((issue) => issue.field);
  const one = OneField.safeParse(details);
  return one.success ? [one.data.field] : [];
};

/** The form's error of one request field the server refused, in the user's language. */
export const serverFieldErrors = (fields: readonly string[], values: DeliveryFormValues): DeliveryFormErrors => {
  const errors: DeliveryFormErrors = {};
  for (const field of fields) {
    const item = /^items\.(\d+)\.(description|category|quantity)$/.exec(field);
    const row = item ? values.items[Number(item[1])] : undefined;
    if (item && row) {
      errors[`items.${String(row.key)}.${item[2] ?? ''}`] = item[2] === 'quantity' ? 'deliveries.form.errors.quantity' : 'deliveries.form.errors.invalid';
    } else if (field.startsWith('items')) errors.items = 'deliveries.form.errors.invalid';
    else if (field === 'pickup_room_id') errors.pickup = 'deliveries.form.errors.room';
    else if (field === 'dropoff_room_id')
      errors.dropoff = values.dropoff.roomId === values.pickup.roomId ? 'deliveries.form.errors.sameRoom' : 'deliveries.form.errors.room';
    else if (field === 'deliver_by') errors.deliverBy = 'deliveries.form.errors.deliverByPast';
    else if (field === 'recipient_user_id' || field === 'recipient_name') errors.recipient = 'deliveries.form.errors.recipient';
    else if (field === 'notes') errors.notes = 'deliveries.form.errors.invalid';
  }
  return errors;
};

export const ITEM_CATEGORIES = ItemCategory.options;
