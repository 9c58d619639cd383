import { listJobs } from '@uvd/contracts';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';

describe('the phone menu (issue #25 item 6)', () => {
  it('closes on Escape and gives the focus back to its button', async () => {
    const user = userEvent.setup();
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(listJobs, { status: 200, body: { count: 0, payload: [] } });
    await renderApp({ path: '/jobs', network });
    const toggle = await screen.findByRole('button', { name: 'Toggle navigation' });
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await user.tab();
    expect(toggle).not.toHaveFocus();

    await user.keyboard('{Escape}');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(document.getElementById('main-navigation')).not.toHaveClass('show');
    expect(toggle).toHaveFocus();
  });
});
