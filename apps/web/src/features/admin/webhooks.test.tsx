import { createWebhook, deleteWebhook, listWebhooks, testWebhook, updateWebhook } from '@uvd/contracts';
import type { CreatedWebhook, Webhook } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession, testConfig } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { fixtureId } from '../../testing/robot-fixtures.ts';

const HOOK: Webhook = {
  id: fixtureId(41),
  url: 'https://ipc.example.org/hooks/uvd',
  events: ['log.created', 'job.failed'],
  enabled: true,
  description: 'Infection prevention',
  created_at: '2026-11-01T08:00:00.000Z',
  last_delivery: { at: '2026-11-20T10:00:00.000Z', status: 'failed', http_status: 502 },
};
const QUIET: Webhook = { ...HOOK, id: fixtureId(42), url: 'https://quiet.example.org/in', events: ['job.failed'], enabled: false, description: '', last_delivery: null };
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const admin = (hooks: Webhook[] = [HOOK, QUIET]) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), ['done-admin']).on(listWebhooks, { status: 200, body: { data: hooks } });
};

const rows = () => screen.getAllByTestId('webhook-row');

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the webhooks tab (issue #24 item 6)', () => {
  it('lists each webhook with its URL, events, state and last delivery', async () => {
    await renderApp({ path: '/admin#webhooks', network: admin() });
    expect(await screen.findByRole('tab', { name: 'Webhooks' })).toHaveAttribute('aria-selected', 'true');
    await screen.findAllByTestId('webhook-row');
    expect(within(screen.getByRole('table')).getAllByRole('columnheader').map((header) => header.textContent)).toEqual([
      'URL',
      'Description',
      'Events',
      'State',
      'Last delivery',
      'Actions',
    ]);
    const [hook, quiet] = rows().map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent));
    // Times in the user's timezone (Europe/Helsinki, UTC+2 in November).
    expect(hook?.slice(0, 5)).toEqual([HOOK.url, 'Infection prevention', 'Log created, Job failed', 'On', 'Failed HTTP 502 20.11.2026 12:00 PM']);
    expect(quiet?.slice(0, 5)).toEqual([QUIET.url, '', 'Job failed', 'Off', 'Nothing sent yet']);
  });

  it('says when there is none yet, and when the list cannot be read', async () => {
    const { unmount } = await renderApp({ path: '/admin#webhooks', network: admin([]) });
    expect(await screen.findByTestId('admin-nodata')).toHaveTextContent('No data yet.');
    unmount();
    await renderApp({ path: '/admin#webhooks', network: admin().on(listWebhooks, { status: 500, body: { error: 'internal', message: 'boom' } }) });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load data.');
  });

  it('creates a webhook and shows its secret once, with a copy button and the note that it will not be shown again', async () => {
    const created: CreatedWebhook = { ...HOOK, id: fixtureId(43), url: 'https://new.example.org/uvd', events: ['job.failed'], description: 'Night desk', last_delivery: null, secret: SECRET };
    const network = admin().on(createWebhook, () => {
      network.on(listWebhooks, { status: 200, body: { data: [HOOK, QUIET, created] } });
      return { status: 201, body: created };
    });
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', Object.create(navigator, { clipboard: { value: { writeText } } }) as Navigator);
    await renderApp({ path: '/admin#webhooks', network });
    await screen.findAllByTestId('webhook-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook' });
    const events = within(dialog).getByRole('group', { name: 'Events to send' });
    // The disinfection console offers no delivery event.
    expect(within(events).getAllByRole('checkbox').map((box) => box.closest('.form-check')?.textContent)).toEqual(['Log created log.created', 'Job failed job.failed']);

    await userEvent.type(within(dialog).getByLabelText('URL (https)'), 'not a url');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add webhook' }));
    expect(within(dialog).getByLabelText('URL (https)')).toHaveAttribute('aria-invalid', 'true');
    expect(within(dialog).getByLabelText('URL (https)')).toHaveFocus();
    expect(within(dialog).getByText(/Enter an https address/)).toBeInTheDocument();
    expect(within(dialog).getByText('Choose at least one event.')).toBeInTheDocument();
    expect(network.callsTo(createWebhook)).toHaveLength(0);

    await userEvent.clear(within(dialog).getByLabelText('URL (https)'));
    await userEvent.type(within(dialog).getByLabelText('URL (https)'), 'https://new.example.org/uvd');
    await userEvent.click(within(events).getByRole('checkbox', { name: /Job failed/ }));
    await userEvent.type(within(dialog).getByLabelText('Description (optional)'), 'Night desk');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add webhook' }));

    const secret = await screen.findByRole('dialog', { name: 'The webhook’s signing secret' });
    expect(within(secret).getByLabelText('Signing secret')).toHaveValue(SECRET);
    expect(secret).toHaveAccessibleDescription('Store it now: it will not be shown again. If it is lost, delete the webhook and add it again.');
    await userEvent.click(within(secret).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(within(secret).getByRole('status')).toHaveTextContent('The secret was copied.');
    expect(JSON.parse(network.callsTo(createWebhook)[0]?.body ?? '{}')).toEqual({
      url: 'https://new.example.org/uvd',
      events: ['job.failed'],
      description: 'Night desk',
      enabled: true,
    });

    await userEvent.click(within(secret).getByRole('button', { name: 'Done' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull();
    });
    expect(await screen.findByText('https://new.example.org/uvd')).toBeInTheDocument();
    expect(screen.queryByDisplayValue(SECRET)).toBeNull();
  });

  it('offers the delivery event in the logistics variant', async () => {
    await renderApp({ path: '/admin#webhooks', network: admin(), config: testConfig({ variant: 'logistics' }) });
    await screen.findAllByTestId('webhook-row');
    await userEvent.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook' });
    expect(within(dialog).getByRole('checkbox', { name: /Delivery delivered/ })).toBeInTheDocument();
  });

  it("marks the field a 400 names, in the user's language, and keeps the dialog open", async () => {
    const network = admin().on(createWebhook, {
      status: 400,
      body: { error: 'validation', message: 'Invalid body field "url": url must be an https URL', details: { issues: [{ field: 'url', message: 'url must be an https URL' }] } },
    });
    await renderApp({ path: '/admin#webhooks', network, language: 'fi' });
    await screen.findAllByTestId('webhook-row');
    await userEvent.click(screen.getByRole('button', { name: 'Lisää' }));
    const dialog = await screen.findByRole('dialog', { name: 'Lisää webhook' });
    await userEvent.type(within(dialog).getByLabelText('URL-osoite (https)'), 'http://intranet.example.org/hook');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /Loki luotu/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Lisää webhook' }));
    await waitFor(() => {
      expect(within(dialog).getByLabelText('URL-osoite (https)')).toHaveAttribute('aria-invalid', 'true');
    });
    expect(within(dialog).getByLabelText('URL-osoite (https)')).toHaveAccessibleDescription(/^Anna https-osoite/);
    expect(screen.getByRole('dialog', { name: 'Lisää webhook' })).toBeInTheDocument();
  });

  it('turns a webhook off and on', async () => {
    const network = admin().on(updateWebhook, (request) => ({ status: 200, body: { ...HOOK, ...(JSON.parse(request.body) as Partial<Webhook>) } }));
    await renderApp({ path: '/admin#webhooks', network });
    await screen.findAllByTestId('webhook-row');
    await userEvent.click(screen.getByRole('button', { name: `Turn off the webhook ${HOOK.url}` }));
    expect(await screen.findByText(`The webhook ${HOOK.url} is off`)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: `Turn on the webhook ${QUIET.url}` }));
    await waitFor(() => {
      expect(network.callsTo(updateWebhook)).toHaveLength(2);
    });
    const [off, on] = network.callsTo(updateWebhook);
    expect(off?.url.pathname).toBe(`/api/webhooks/${HOOK.id}`);
    expect(JSON.parse(off?.body ?? '{}')).toEqual({ enabled: false });
    expect(on?.url.pathname).toBe(`/api/webhooks/${QUIET.id}`);
    expect(JSON.parse(on?.body ?? '{}')).toEqual({ enabled: true });
  });

  it('sends a test event', async () => {
    const network = admin().on(testWebhook, { status: 202, body: { queued: true } });
    await renderApp({ path: '/admin#webhooks', network });
    await screen.findAllByTestId('webhook-row');
    await userEvent.click(screen.getByRole('button', { name: `Send test to ${HOOK.url}` }));
    expect(await screen.findByText(`A test event is on its way to ${HOOK.url}`)).toBeInTheDocument();
    expect(network.callsTo(testWebhook)[0]?.url.pathname).toBe(`/api/webhooks/${HOOK.id}/test`);
  });

  it('deletes a webhook only after the confirmation', async () => {
    const network = admin().on(deleteWebhook, () => {
      network.on(listWebhooks, { status: 200, body: { data: [QUIET] } });
      return { status: 200, body: { data: { [HOOK.id]: true } } };
    });
    await renderApp({ path: '/admin#webhooks', network });
    await screen.findAllByTestId('webhook-row');
    await userEvent.click(screen.getByRole('button', { name: `Delete ${HOOK.url}` }));
    const confirm = await screen.findByRole('dialog', { name: `Delete ${HOOK.url}?` });
    expect(network.callsTo(deleteWebhook)).toHaveLength(0);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('The webhook was deleted')).toBeInTheDocument();
    await waitFor(() => {
      expect(rows()).toHaveLength(1);
    });
  });
});
