import { changeMyPassword, forgotPassword, postToken, resetPassword } from '@uvd/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { LOCAL_KEYS } from '../../lib/storage.ts';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';

const fill = async (user: ReturnType<typeof userEvent.setup>, values: { organization?: string; username?: string; password?: string }) => {
  if (values.organization !== undefined) {
    await user.clear(screen.getByLabelText('Organization'));
    if (values.organization) await user.type(screen.getByLabelText('Organization'), values.organization);
  }
  if (values.username) await user.type(screen.getByLabelText('Username'), values.username);
  if (values.password) await user.type(screen.getByLabelText('Password'), values.password);
};

describe('sign-in (behaviour §2, §5)', () => {
  it('requires organization, username and password (validation.required), counting blanks as empty, and calls nothing', async () => {
    const user = userEvent.setup();
    const network = new FakeNetwork();
    await renderApp({ path: '/auth', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await fill(user, { username: '   ' });
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    for (const label of ['Organization', 'Username', 'Password']) {
      const field = screen.getByLabelText(label);
      expect(field).toHaveAttribute('aria-invalid', 'true');
      expect(field).toHaveAccessibleDescription('Required');
    }
    expect(screen.getByLabelText('Organization')).toHaveFocus();
    expect(network.requests).toHaveLength(0);
  });

  it('lowercases and trims the organization, trims username and password, and remembers the organization', async () => {
    const user = userEvent.setup();
    const network = fakeIdentity(new FakeNetwork());
    const { router } = await renderApp({ path: '/auth', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await fill(user, { organization: ' DeMo ', username: ' olivia ', password: ' secret ' });
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    const [grant] = network.callsTo(postToken);
    expect(grant?.url.pathname).toBe('/idp/realms/demo/protocol/openid-connect/token');
    expect(grant?.form.get('username')).toBe('olivia');
    expect(grant?.form.get('password')).toBe('secret');
    expect(window.localStorage.getItem(LOCAL_KEYS.organization)).toBe('demo');
  });

  it('shows signInForm.error when the provider refuses, and stays on the form', async () => {
    const user = userEvent.setup();
    const network = new FakeNetwork().on(postToken, { status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } });
    const { router } = await renderApp({ path: '/auth/demo', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await fill(user, { username: 'olivia', password: 'wrong' });
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Sign-in failed. Check your organization, username and password.');
    expect(router.location().pathname).toBe('/auth/demo');
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  it('disables the button while signing in', async () => {
    const user = userEvent.setup();
    let release: () => void = () => undefined;
    const network = new FakeNetwork().on(postToken, () => new Promise((resolve) => {
      release = () => {
        resolve({ status: 401, body: { error: 'invalid_grant' } });
      };
    }));
    await renderApp({ path: '/auth/demo', network });
    await screen.findByRole('heading', { level: 1, name: 'Sign in' });
    await fill(user, { username: 'olivia', password: 'secret' });
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(screen.getByRole('button', { name: /Sign in/ })).toBeDisabled();
    });
    release();
    expect(await screen.findByRole('alert')).toBeInTheDocument();
  });

  it('takes the organization from the route, else from the last sign-in', async () => {
    const first = await renderApp({ path: '/auth/northwind' });
    expect(await screen.findByLabelText('Organization')).toHaveValue('northwind');
    first.unmount();

    window.localStorage.setItem(LOCAL_KEYS.organization, 'demo');
    await renderApp({ path: '/auth' });
    expect(await screen.findByLabelText('Organization')).toHaveValue('demo');
  });
});

describe('restore password and sign-up (behaviour §2, §5)', () => {
  it('checks organization ("Required") and email ("Invalid email"), asks for a link, then confirms without revealing anything', async () => {
    const user = userEvent.setup();
    const network = new FakeNetwork().on(forgotPassword, { status: 202, body: { status: 'accepted' } });
    await renderApp({ path: '/auth/restore-my-password', network });
    await screen.findByRole('heading', { level: 1, name: 'Forgot password' });
    await user.type(screen.getByLabelText('Organization'), '  ');
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(screen.getByLabelText('Organization')).toHaveAccessibleDescription('Required');
    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('Invalid email');
    expect(network.requests).toHaveLength(0);

    await user.type(screen.getByLabelText('Organization'), 'Demo');
    await user.clear(screen.getByLabelText('Email'));
    await user.type(screen.getByLabelText('Email'), 'olivia@demo.test');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByRole('status')).toHaveTextContent(/If an account matches, we have mailed it a link/);
    expect(network.callsTo(forgotPassword).map((call) => JSON.parse(call.body) as unknown)).toEqual([
      { organization: 'demo', email: 'olivia@demo.test', language: 'EN' },
    ]);
    expect(screen.getByRole('link', { name: 'Back to login' })).toHaveAttribute('href', '/auth');
  });

  it("the mail's link sets a new password, with the rule shown and checked first, and names an expired link", async () => {
    const user = userEvent.setup();
    const token = 'A'.repeat(43);
    const network = new FakeNetwork().on(resetPassword, { status: 410, body: { error: 'reset_link_expired', message: 'expired' } });
    await renderApp({ path: `/auth/reset-password?token=${token}`, network });
    await screen.findByRole('heading', { level: 1, name: 'Choose a new password' });
    expect(screen.getByText('The password must be at least 8 characters long.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('New password'), 'short');
    await user.type(screen.getByLabelText('Repeat the new password'), 'shorter');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect(screen.getByLabelText('New password')).toHaveAccessibleDescription('Password should be at least 8 characters long');
    expect(screen.getByLabelText('Repeat the new password')).toHaveAccessibleDescription('The passwords do not match');
    expect(network.callsTo(resetPassword)).toHaveLength(0);

    await user.clear(screen.getByLabelText('New password'));
    await user.clear(screen.getByLabelText('Repeat the new password'));
    await user.type(screen.getByLabelText('New password'), 'a new secret');
    await user.type(screen.getByLabelText('Repeat the new password'), 'a new secret');
    await user.click(screen.getByRole('button', { name: 'Save the new password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This link has expired');
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/auth/restore-my-password');
    expect(JSON.parse(network.callsTo(resetPassword)[0]?.body ?? '{}')).toEqual({ token, password: 'a new secret' });
  });

  it('a signed-in user changes their own password from the profile: the current one is checked, then back to the profile', async () => {
    const user = userEvent.setup();
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(changeMyPassword, {
      status: 400,
      body: { error: 'wrong_password', message: 'The current password is not right.' },
    });
    const { router } = await renderApp({ path: '/profile', network });
    await user.click(await screen.findByRole('link', { name: 'Change password' }));
    await screen.findByRole('heading', { level: 1, name: 'Change your password' });
    expect(screen.getByText(/You stay signed in here/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Current password'), 'not it');
    await user.type(screen.getByLabelText('New password'), 'my new password');
    await user.type(screen.getByLabelText('Repeat the new password'), 'my new password');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The current password is not right.');

    network.on(changeMyPassword, { status: 204 });
    const grants = network.callsTo(postToken).length;
    await user.clear(screen.getByLabelText('Current password'));
    await user.type(screen.getByLabelText('Current password'), 'my old password');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/profile');
    });
    expect(JSON.parse(network.callsTo(changeMyPassword).at(-1)?.body ?? '{}')).toEqual({ currentPassword: 'my old password', password: 'my new password' });
    // The server ends every session of the user; this tab signs in again with the new password.
    expect(network.callsTo(postToken).slice(grants).map((call) => call.form.get('password'))).toEqual(['my new password']);
  });

  it('Cancel on a chosen password change goes back to the profile, calling nothing', async () => {
    const user = userEvent.setup();
    storeSession();
    const network = fakeIdentity(new FakeNetwork());
    const { router } = await renderApp({ path: '/profile', network });
    await user.click(await screen.findByRole('link', { name: 'Change password' }));
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/profile');
    });
    expect(network.callsTo(changeMyPassword)).toHaveLength(0);
  });

  it('sign-up explains where accounts come from and leads back to login', async () => {
    const user = userEvent.setup();
    const { router } = await renderApp({ path: '/auth/sign-up' });
    expect(await screen.findByText(/administrator/)).toBeInTheDocument();
    expect(screen.getByText(/support contact/)).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Back to login' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/auth');
    });
  });

  it('sign-in links to both', async () => {
    await renderApp({ path: '/auth' });
    expect(await screen.findByRole('link', { name: 'Forgot your password?' })).toHaveAttribute('href', '/auth/restore-my-password');
    expect(screen.getByRole('link', { name: 'Need an account?' })).toHaveAttribute('href', '/auth/sign-up');
  });
});
