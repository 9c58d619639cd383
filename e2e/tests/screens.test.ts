/**
 * Every screen of behaviour §2 as the demo admin sees it, at 1280×800 and 375×812: each one (and each tab, modal and
 * dialog of it) screenshotted and checked with axe; on /settings the language is switched to Finnish and Swedish
 * and the navigation follows.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, screenshot, settle, stillness, textOf, VIEWPORTS, type Session } from '../support/browser.ts';
import { blockSession, DEMO, t, type Language } from '../support/console.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

/**
 * What scrolls sideways: the page itself, a table's scroll box (whose far columns a phone user would not see), or
 * a tab list. Described by the headers or tabs inside.
 */
function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) found.push(`the page (${String(root.scrollWidth)} px in ${String(root.clientWidth)} px)`);
    for (const box of Array.from(document.querySelectorAll('main .table-responsive'))) {
      if (box.scrollWidth <= box.clientWidth + 1) continue;
      const headers = Array.from(box.querySelectorAll('thead th')).map((header) => header.textContent.trim()).join(' | ');
      found.push(`a table (${headers}: ${String(box.scrollWidth)} px in ${String(box.clientWidth)} px)`);
    }
    for (const list of Array.from(document.querySelectorAll('main [role=tablist]'))) {
      if (list.scrollWidth <= list.clientWidth + 1) continue;
      found.push(`tabs (${list.textContent}: ${String(list.scrollWidth)} px in ${String(list.clientWidth)} px)`);
    }
    return found;
  });
}

/** Screenshot, axe and no sideways scrolling, under one name. */
async function capture(session: Session, screen: string): Promise<void> {
  await stillness(session.page);
  await screenshot(session, screen);
  await expectAccessible(session, screen);
  expect(await horizontalOverflow(session.page), `sideways scrolling on ${screen}`).toEqual([]);
}

/** Opens the modal dialog a button opens. */
async function openDialog(page: Page, opener: () => Promise<void>): Promise<ReturnType<Page['getByRole']>> {
  await opener();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor({ state: 'visible' });
  return dialog;
}

async function closeDialog(page: Page): Promise<void> {
  await page.getByRole('dialog').getByRole('button', { name: t('en', 'common.cancel') }).click();
  await page.locator('.modal').waitFor({ state: 'detached' });
}

/** The settings form's language select, chosen and saved; resolves when the navigation reads that language. */
async function saveLanguage(page: Page, from: Language, to: Language): Promise<void> {
  await page.getByLabel(t(from, 'settings.language')).selectOption(to);
  await page.getByRole('button', { name: t(from, 'settings.save') }).click();
  await expect.poll(() => page.getByTestId('nav-jobs').textContent()).toBe(t(to, 'nav.jobs'));
}

describe.each(VIEWPORTS)('every screen at $width×$height, as the demo admin', (viewport) => {
  // One signed-in session walks every screen: signing in once per viewport keeps the file quick.
  const session = blockSession(() => browser, viewport, DEMO.admin);

  it('the jobs list, with a row expanded', async () => {
    const { page } = session;
    await session.goto('/jobs');
    await capture(session, 'admin-jobs');
    const rows = page.getByTestId('job-row');
    await rows.first().waitFor({ state: 'visible' });
    await rows.first().getByRole('button', { expanded: false }).click();
    await page.getByTestId('job-details').first().waitFor({ state: 'visible' });
    await settle(page);
    await capture(session, 'admin-jobs-expanded');
  });

  it('the job editor', async () => {
    await session.goto('/jobs/create');
    await capture(session, 'job-create');
  });

  it('the logs list, with a log open', async () => {
    const { page } = session;
    await session.goto('/logs');
    await capture(session, 'logs');
    const rows = page.getByTestId('log-row');
    await rows.first().waitFor({ state: 'visible' });
    await rows.first().getByRole('button', { expanded: false }).click();
    await page.getByTestId('log-detail').waitFor({ state: 'visible' });
    await settle(page);
    await capture(session, 'log-detail');
  });

  it('the robots list and a robot dialog', async () => {
    const { page } = session;
    await session.goto('/robots');
    await page.getByTestId('robot-row').first().waitFor({ state: 'visible' });
    await capture(session, 'robots');
    // Live readings replace the values at once: nothing animates while they arrive (the battery bar's width
    // transition used to run without pause under the demo's robots, 55 layouts a second).
    const animating = await page.evaluate(async () => {
      let most = 0;
      for (let sample = 0; sample < 30; sample += 1) {
        most = Math.max(most, document.getAnimations().length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return most;
    });
    expect(animating, 'animations running on the live robots table').toBe(0);
    await openDialog(page, () => page.getByRole('button', { name: 'UVD-1', exact: true }).click());
    await expect.poll(() => textOf(page.getByRole('dialog').getByRole('heading'))).toBe('UVD-1');
    await capture(session, 'robot-dialog');
    await page.getByRole('dialog').getByRole('button', { name: t('en', 'common.close') }).last().click();
    await page.locator('.modal').waitFor({ state: 'detached' });
  });

  it('the map, with a floor chosen', async () => {
    const { page } = session;
    await session.goto('/map');
    await capture(session, 'map');
    await page.getByLabel(t('en', 'map.building')).selectOption({ index: 1 });
    const floor = page.getByLabel(t('en', 'map.floor'));
    await expect.poll(() => floor.isEnabled()).toBe(true);
    await floor.selectOption({ index: 1 });
    await page.getByTestId('floor-map').waitFor({ state: 'visible' });
    await page.getByTestId('map-room').first().waitFor({ state: 'attached' });
    await capture(session, 'map-floor');
  });

  it('the profile', async () => {
    const { page } = session;
    await session.goto('/profile');
    await page.getByRole('main').getByText(DEMO.admin.username, { exact: true }).waitFor({ state: 'visible' });
    await settle(page);
    await capture(session, 'profile');
  });

  it('the settings, switching the interface to Finnish and Swedish and back', async () => {
    const { page } = session;
    await session.goto('/settings');
    await page.getByLabel(t('en', 'settings.language')).waitFor({ state: 'visible' });
    await capture(session, 'settings');
    try {
      await saveLanguage(page, 'en', 'fi');
      await expect.poll(() => textOf(page.locator('h1'))).toBe(t('fi', 'settings.title'));
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('fi');
      await capture(session, 'settings-fi');
      await saveLanguage(page, 'fi', 'se');
      await expect.poll(() => textOf(page.locator('h1'))).toBe(t('se', 'settings.title'));
      await expect.poll(() => page.locator('html').getAttribute('lang')).toBe('sv');
      await capture(session, 'settings-se');
    } finally {
      // The language is saved for the admin: leave it English for the other screens and files.
      const shown = await page.locator('html').getAttribute('lang');
      if (shown === 'fi') await saveLanguage(page, 'fi', 'en');
      if (shown === 'sv') await saveLanguage(page, 'se', 'en');
    }
    expect(await textOf(page.locator('h1'))).toBe(t('en', 'settings.title'));
  });

  it('the admin dashboard: each tab, and each add modal', async () => {
    const { page } = session;
    await session.goto('/admin');
    for (const tab of ['users', 'groups', 'robots', 'contacts'] as const) {
      await page.getByRole('tab', { name: t('en', `adminView.tab.${tab}`) }).click();
      await page.waitForURL((url) => url.hash === `#${tab}`);
      await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe(t('en', `adminView.tab.${tab}`));
      await page.getByTestId(`${tab.replace(/s$/, '')}-row`).first().waitFor({ state: 'visible' });
      await settle(page);
      await capture(session, `admin-${tab}`);
      if (tab === 'robots') {
        expect(await page.getByRole('button', { name: t('en', 'common.add'), exact: true }).count(), 'robots cannot be added').toBe(0);
        continue;
      }
      const title = { users: 'addUser.title', groups: 'addGroup.title', contacts: 'addContact.title' }[tab];
      const dialog = await openDialog(page, () => page.getByRole('button', { name: t('en', 'common.add'), exact: true }).click());
      await expect.poll(() => textOf(dialog.getByRole('heading'))).toBe(t('en', title));
      await capture(session, `admin-${tab}-add`);
      await closeDialog(page);
    }
  });

  it('the group assignment: each of its three tabs', async () => {
    const { page } = session;
    await session.goto('/admin#groups');
    await page.getByRole('link', { name: t('en', 'adminView.manageGroupNamed').replace('{{name}}', 'Ward A') }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/admin/groups/'));
    await settle(page);
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('en', 'assignView.title').replace('{{name}}', 'Ward A'));
    for (const tab of ['users', 'locations', 'robots'] as const) {
      await page.getByRole('tab', { name: t('en', `adminView.tab.${tab}`) }).click();
      await page.waitForURL((url) => url.hash === `#${tab}`);
      await page.getByTestId('assignment-table').waitFor({ state: 'visible' });
      await settle(page);
      await capture(session, `group-${tab}`);
    }
  });

  it('in Finnish and Swedish, whose words are longer: the robots table and the admin tabs fit', async () => {
    const { page } = session;
    try {
      for (const language of ['fi', 'se'] as const) {
        await session.goto(`/robots?lng=${language}`);
        await expect.poll(() => textOf(page.locator('h1'))).toBe(t(language, 'nav.robots'));
        await page.getByTestId('robot-row').first().waitFor({ state: 'visible' });
        await capture(session, `robots-${language}`);
        await session.goto(`/admin?lng=${language}#contacts`);
        await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe(t(language, 'adminView.tab.contacts'));
        await page.getByTestId('contact-row').first().waitFor({ state: 'visible' });
        await settle(page);
        await capture(session, `admin-contacts-${language}`);
      }
    } finally {
      // ?lng is cached in local storage: back to English for the screens after this one.
      await session.goto('/robots?lng=en');
    }
  });

  it('the deliveries placeholder and the not-found page', async () => {
    const { page } = session;
    await session.goto('/deliveries');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('en', 'nav.deliveries'));
    await capture(session, 'deliveries');
    await session.goto('/no/such/screen');
    await expect.poll(() => textOf(page.locator('h1'))).toBe(t('en', 'notFound.title'));
    await capture(session, 'not-found-signed-in');
  });
});
