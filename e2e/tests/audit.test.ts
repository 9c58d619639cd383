/**
 * The admin's audit trail and webhooks (issue #24 items 5–6) at 1280×800 and 375×812, against the real server: the
 * demo admin adds a contact, finds that very change in the Audit trail tab by searching for it, opens its before
 * and after, and exports what the search matches; then registers a webhook, reads its signing secret the one time
 * it is shown, turns it off and deletes it. Axe-clean on each screen. Names carry the viewport's width and the
 * time, so runs and viewports never meet each other's data; what a test adds it removes.
 */
import { readFile } from 'node:fs/promises';
import { AuditEntry, deleteContact, listAdminContacts } from '@uvd/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, callApi } from '../support/api.ts';
import { expectAccessible, launchBrowser, screenshot, settle, textOf, VIEWPORTS, type Session } from '../support/browser.ts';
import { blockSession, DEMO, t, tFill } from '../support/console.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

async function openAdminTab(session: Session, tab: 'contacts' | 'audit' | 'webhooks'): Promise<void> {
  await session.goto(`/admin#${tab}`);
  await expect.poll(() => session.page.getByRole('tab', { selected: true }).textContent()).toBe(t('en', `adminView.tab.${tab}`));
  await settle(session.page);
}

async function expectToast(page: Page, text: string): Promise<void> {
  await page.locator('.Toastify').getByText(text, { exact: true }).first().waitFor({ state: 'visible' });
}

/** Nothing on the page scrolls sideways (a phone user would not find what is off to the right). */
async function expectNoSidewaysScroll(page: Page, screen: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const root = document.documentElement;
    const tabs = Array.from(document.querySelectorAll('main [role=tablist]')).filter((list) => list.scrollWidth > list.clientWidth + 1);
    return { page: root.scrollWidth > root.clientWidth, tabs: tabs.length };
  });
  expect(overflow, `sideways scrolling on ${screen}`).toEqual({ page: false, tabs: 0 });
}

/** The entry's "Show changes" button; resolves with the before/after it opened. */
async function openChanges(page: Page, row: Locator): Promise<Locator> {
  // Its name says what a press does (show, then hide): found by the entry it names, whatever it says.
  const ofEntry = t('en', 'audit.ofEntry').replace('{{seq}}', '\\d+');
  const toggle = row.getByRole('button', { name: new RegExp(`${ofEntry}$`) });
  await expect.poll(() => toggle.textContent()).toMatch(new RegExp(`^${t('en', 'audit.showChanges')}`));
  await toggle.click();
  await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('true');
  const id = await toggle.getAttribute('aria-controls');
  if (!id) throw new Error('the open entry names no before/after');
  const diff = page.locator(`[id="${id}"]`);
  await diff.waitFor({ state: 'visible' });
  return diff;
}

describe.each(VIEWPORTS)('the audit trail and webhooks at $width×$height', (viewport) => {
  const session = blockSession(() => browser, viewport, DEMO.admin, { fresh: 'each' });

  it('finds the contact the admin just added in the audit trail, with its before and after, and exports it', async () => {
    const { page } = session;
    const name = `Audit Probe ${viewport.width} ${Date.now().toString(36)}`;
    const api = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
    try {
      // The change: a contact added through the console, as an admin would.
      await openAdminTab(session, 'contacts');
      await page.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
      const dialog = page.getByRole('dialog', { name: t('en', 'addContact.title') });
      await dialog.waitFor({ state: 'visible' });
      await dialog.getByLabel(t('en', 'addContact.contactTitle')).fill('Audit desk');
      await dialog.getByLabel(t('en', 'addContact.name')).fill(name);
      await dialog.getByLabel(t('en', 'addContact.phone')).fill(`+358 40 777 ${viewport.width}`);
      await dialog.getByLabel(t('en', 'addContact.email')).fill(`audit.probe.${viewport.width}@demo-hospital.example`);
      await dialog.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
      await expectToast(page, t('en', 'adminView.contactCreated'));

      // The trail: its chain holds, and a search for the name finds the insert, by this admin, newest first.
      await openAdminTab(session, 'audit');
      const chain = page.getByTestId('audit-chain');
      await expect.poll(() => textOf(chain), { timeout: 15_000 }).toContain(t('en', 'audit.chain.holds'));
      await page.getByLabel(t('en', 'audit.filter.q')).fill(name);
      await page.getByRole('button', { name: t('en', 'common.search'), exact: true }).click();
      const rows = page.getByTestId('audit-row');
      const created = rows.filter({ hasText: t('en', 'audit.operation.insert') }).filter({ hasText: DEMO.admin.username });
      await created.first().waitFor({ state: 'visible' });
      await settle(page);
      expect(await textOf(created)).toContain('contact');
      const diff = await openChanges(page, created.first());
      expect(await textOf(diff)).toContain(name);
      expect(await textOf(diff)).toContain(t('en', 'audit.diff.after'));
      await screenshot(session, 'admin-audit-entry');
      await expectAccessible(session, 'admin-audit-entry');
      await expectNoSidewaysScroll(page, 'admin-audit-entry');

      // The export of what the search matched: NDJSON lines of entries, each with its hash.
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: t('en', 'audit.export') }).click()]);
      expect(download.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.ndjson$/);
      const file = await download.path();
      const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '');
      const entries = lines.map((line) => AuditEntry.parse(JSON.parse(line)));
      const insert = entries.find((item) => item.entity === 'contact' && item.operation === 'insert' && JSON.stringify(item.after).includes(name));
      expect(insert?.actor).toBe(DEMO.admin.username);
      expect(insert?.hash).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      const contacts = await callApi(api, listAdminContacts);
      for (const contact of contacts.data.payload.filter((item) => item.name === name)) {
        await callApi(api, deleteContact, { params: { id: contact.id } });
      }
    }
  });

  it('registers a webhook, shows its secret once, turns it off and deletes it', async () => {
    const { page } = session;
    const url = `https://hooks.example.org/uvd-e2e-${viewport.width}-${Date.now().toString(36)}`;
    await openAdminTab(session, 'webhooks');
    await page.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
    const dialog = page.getByRole('dialog', { name: t('en', 'webhooks.create.title') });
    await dialog.waitFor({ state: 'visible' });
    // The disinfection console offers no delivery event.
    expect(await dialog.getByRole('checkbox').count()).toBe(2);
    await dialog.getByRole('button', { name: t('en', 'webhooks.create.submit') }).click();
    await dialog.getByText(t('en', 'webhooks.create.eventsError'), { exact: true }).waitFor({ state: 'visible' });
    await dialog.getByLabel(t('en', 'webhooks.create.url')).fill(url);
    await dialog.getByRole('checkbox', { name: new RegExp(t('en', 'webhooks.event.jobFailed')) }).check();
    await dialog.getByLabel(t('en', 'webhooks.create.description')).fill('Browser test');
    await screenshot(session, 'admin-webhook-create');
    await expectAccessible(session, 'admin-webhook-create');
    await dialog.getByRole('button', { name: t('en', 'webhooks.create.submit') }).click();

    const secret = page.getByRole('dialog', { name: t('en', 'webhooks.secret.title') });
    await secret.waitFor({ state: 'visible' });
    expect(await secret.getByLabel(t('en', 'webhooks.secret.label')).inputValue()).toMatch(/^whsec_/);
    expect(await textOf(secret)).toContain(t('en', 'webhooks.secret.once'));
    await secret.getByRole('button', { name: t('en', 'webhooks.secret.copy') }).click();
    // Copied, or (no clipboard permission in this browser) the hint to copy it by hand: either way, said.
    await expect
      .poll(() => textOf(secret.getByRole('status')))
      .toMatch(new RegExp(`^(${t('en', 'webhooks.secret.copied')}|${t('en', 'webhooks.secret.copyFailed')})$`.replaceAll('.', '\\.')));
    await screenshot(session, 'admin-webhook-secret');
    await expectAccessible(session, 'admin-webhook-secret');
    await secret.getByRole('button', { name: t('en', 'webhooks.secret.done') }).click();
    await secret.waitFor({ state: 'detached' });

    const row = page.getByTestId('webhook-row').filter({ hasText: url });
    await row.waitFor({ state: 'visible' });
    expect(await textOf(row)).toContain(t('en', 'webhooks.event.jobFailed'));
    expect(await textOf(row)).toContain(t('en', 'webhooks.enabled'));
    // The secret is not shown again.
    expect(await page.locator('input[value^="whsec_"]').count()).toBe(0);
    await settle(page);
    await screenshot(session, 'admin-webhooks');
    await expectAccessible(session, 'admin-webhooks');
    await expectNoSidewaysScroll(page, 'admin-webhooks');

    await page.getByRole('button', { name: tFill('en', 'webhooks.disableNamed', { url }) }).click();
    await expectToast(page, tFill('en', 'webhooks.disabledToast', { url }));
    await expect.poll(() => textOf(row)).toContain(t('en', 'webhooks.disabled'));

    await page.getByRole('button', { name: tFill('en', 'adminView.deleteItem', { name: url }), exact: true }).click();
    const confirm = page.getByRole('dialog', { name: tFill('en', 'adminView.confirmDelete', { name: url }) });
    await confirm.waitFor({ state: 'visible' });
    await confirm.getByRole('button', { name: t('en', 'common.delete'), exact: true }).click();
    await expectToast(page, t('en', 'webhooks.deleted'));
    await row.waitFor({ state: 'detached' });
  });
});
