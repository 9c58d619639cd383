import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { I18nextProvider } from 'react-i18next';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { createI18n } from '../lib/i18n.ts';
import { toast } from '../lib/toast.ts';
import { Link, MemoryRouter, Route, Routes } from 'react-router';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { RouteErrorBoundary } from './route-error.tsx';
import { Toasts } from './toasts.tsx';

const withI18n = async (node: ReactNode) => {
  const i18n = await createI18n({ language: 'en' });
  return render(<I18nextProvider i18n={i18n}>{node}</I18nextProvider>);
};

describe('toasts (behaviour §9: bottom-center, 3000 ms, at most 3)', () => {
  it('shows at most three at the bottom centre', async () => {
    await withI18n(<Toasts />);
    for (const text of ['one', 'two', 'three', 'four']) toast.info(text);
    await screen.findByText('three');
    expect(screen.queryByText('four')).not.toBeInTheDocument();
    expect(document.querySelector('.Toastify__toast-container--bottom-center')).not.toBeNull();
    toast.dismiss();
  });

  it('closes a toast after 3000 ms', async () => {
    await withI18n(<Toasts />);
    toast.success('Job started');
    const shown = await screen.findByText('Job started');
    const bar = shown.closest('.Toastify__toast')?.querySelector('.Toastify__progress-bar');
    expect(bar?.getAttribute('style')).toContain('animation-duration: 3000ms');
    toast.dismiss();
  });
});

describe('confirm dialog (behaviour §4: every command asks first)', () => {
  it('confirms or cancels, and is busy while the command runs', async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    const onCancel = vi.fn();
    const view = await withI18n(
      <ConfirmDialog show title="Stop this job?" body="UVD-1 returns home." variant="danger" onConfirm={onConfirm} onCancel={onCancel} />,
    );
    const dialog = await screen.findByRole('dialog', { name: 'Stop this job?' });
    expect(dialog).toHaveTextContent('UVD-1 returns home.');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalledTimes(1);

    const i18n = await createI18n({ language: 'en' });
    view.rerender(
      <I18nextProvider i18n={i18n}>
        <ConfirmDialog show busy title="Stop this job?" onConfirm={onConfirm} onCancel={onCancel} />
      </I18nextProvider>,
    );
    await waitFor(() => {
      expect(screen.getByRole('button', { name: /Confirm/ })).toBeDisabled();
    });
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeDisabled();
  });
});

describe('a screen that fails', () => {
  const Broken = (): ReactNode => {
    throw new Error('render failed');
  };

  it('shows the error screen with a reload button, and leaves it when the user follows a link', async () => {
    const user = userEvent.setup();
    // React reports the caught error on the console; the boundary logs it too.
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await withI18n(
      <MemoryRouter initialEntries={['/broken']}>
        <Link to="/fine">elsewhere</Link>
        <RouteErrorBoundary>
          <Routes>
            <Route path="/broken" element={<Broken />} />
            <Route path="/fine" element={<p>fine screen</p>} />
          </Routes>
        </RouteErrorBoundary>
      </MemoryRouter>,
    );
    expect(await screen.findByRole('heading', { name: 'Something went wrong' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'elsewhere' }));
    expect(await screen.findByText('fine screen')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Something went wrong' })).not.toBeInTheDocument();
    consoleError.mockRestore();
  });
});
