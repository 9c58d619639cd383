/**
 * The demo admin's work at 1280×800 and 375×812, against the real server and simulated fleet: users and contacts
 * added (after the behaviour §5 messages for a bad email and a short password) and deleted, rooms assigned to a group
 * and taken back, and a robot running a job paused and resumed from its dialog. Names carry the viewport's width,
 * so the two viewports never meet each other's data; every change is undone, so the file can run again.
 */
import { commandJob, createJob, getDoses, getJob, getRobots, getRooms, RobotMode } from '@uvd/contracts';
import type { Job } from '@uvd/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiSignIn, callApi, type ApiSession } from '../support/api.ts';
import { launchBrowser, screenshot, settle, textOf, VIEWPORTS, type Session } from '../support/browser.ts';
import { blockSession, DEMO, t } from '../support/console.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser.close();
});

/** `t` with i18next's `{{name}}` placeholders filled in. */
function tWith(key: string, values: Record<string, string>): string {
  return Object.entries(values).reduce((text, [name, value]) => text.replaceAll(`{{${name}}}`, value), t('en', key));
}

/** A key's text as a pattern, its `{{name}}` placeholder capturing what stands there. */
function tPattern(key: string): RegExp {
  const escaped = t('en', key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace('\\{\\{name\\}\\}', '(.+)')}$`);
}

/** Waits for a toast with exactly this text (they stay 3 s, behaviour §9). */
async function expectToast(page: Page, key: string): Promise<void> {
  await page.locator('.Toastify').getByText(t('en', key), { exact: true }).first().waitFor({ state: 'visible' });
}

async function openAdminTab(session: Session, tab: 'users' | 'groups' | 'contacts'): Promise<void> {
  await session.goto(`/admin#${tab}`);
  await expect.poll(() => session.page.getByRole('tab', { selected: true }).textContent()).toBe(t('en', `adminView.tab.${tab}`));
  await settle(session.page);
}

/** The add modal: opened with the tab's Add button; resolves with the dialog once it has faded in. */
async function openAddModal(page: Page, titleKey: string): Promise<Locator> {
  await page.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
  const dialog = page.getByRole('dialog', { name: t('en', titleKey) });
  await dialog.waitFor({ state: 'visible' });
  return dialog;
}

/** Deletes the row labelled `name` through its Delete button and the confirmation dialog. */
async function deleteRow(page: Page, rows: Locator, name: string, deletedKey: string): Promise<void> {
  await page.getByRole('button', { name: tWith('adminView.deleteItem', { name }), exact: true }).click();
  const confirm = page.getByRole('dialog', { name: tWith('adminView.confirmDelete', { name }) });
  await confirm.waitFor({ state: 'visible' });
  await confirm.getByRole('button', { name: t('en', 'common.delete'), exact: true }).click();
  await expectToast(page, deletedKey);
  await rows.filter({ hasText: name }).waitFor({ state: 'detached' });
}

/**
 * A job for `robotName` over up to ten rooms of its floor at the highest dose, started at once through the API
 * (what the job editor's Start now does): long enough to be paused and resumed while it runs.
 */
async function startLongJob(api: ApiSession, robotName: string, jobName: string): Promise<Job> {
  const findRobot = async () => (await callApi(api, getRobots, { query: { offset: 0, limit: 50 } })).payload.find((candidate) => candidate.name === robotName);
  // The simulated fleet connects after the server listens: wait until the robot reports, Autonomous.
  await expect.poll(async () => (await findRobot())?.mode, { timeout: 30_000 }).toBe(RobotMode.autonomous);
  const robot = await findRobot();
  if (!robot?.floor_id) throw new Error(`${robotName} is not on a floor`);
  const rooms = await callApi(api, getRooms, { query: { floor_id_list: [robot.floor_id], offset: 0, limit: 50 } });
  const doses = await callApi(api, getDoses);
  const dose = Math.max(...doses.uvc_doses);
  const job = await callApi(api, createJob, {
    params: { robotId: robot.robot_id },
    body: {
      name: jobName,
      notes: 'Started by the admin journey browser test (robot controls).',
      // As the editor's Start does (behaviour §4): five minutes ahead, and start_now starts it in the same call.
      start_time: new Date(Date.now() + 5 * 60_000).toISOString(),
      start_now: true,
      rooms: rooms.data.slice(0, 10).map((room, order_no) => ({ room_id: room.room_id, dose, order_no })),
    },
  });
  if (job.status !== 'Running') throw new Error(`${jobName} did not start`);
  return job;
}

/** Stops the job unless it has ended already (tidying up after the test, passed or failed). */
async function stopIfRunning(api: ApiSession, jobId: string): Promise<void> {
  const job = await callApi(api, getJob, { params: { id: jobId }, query: { extra_room_data: true, extra_navigation_data: false } });
  if (job.status !== 'Completed') await callApi(api, commandJob, { params: { job_id: jobId }, query: { command: 'stop' } });
}

describe.each(VIEWPORTS)('the admin journey at $width×$height', (viewport) => {
  const session = blockSession(() => browser, viewport, DEMO.admin, { fresh: 'each' });

  it('adds a user with a role and a group, after the messages for a bad email and a short password, and deletes it', async () => {
    const { page } = session;
    const email = `e2e.user.${viewport.width}@demo-hospital.example`;
    await openAdminTab(session, 'users');
    const rows = page.getByTestId('user-row');
    await rows.first().waitFor({ state: 'visible' });

    const dialog = await openAddModal(page, 'addUser.title');
    await dialog.getByLabel(t('en', 'addUser.firstName')).fill('Erkki');
    await dialog.getByLabel(t('en', 'addUser.lastName')).fill(`Esimerkki ${viewport.width}`);
    await dialog.getByLabel(t('en', 'addUser.email')).fill('erkki.example');
    await dialog.getByLabel(t('en', 'addUser.password')).fill('short');
    await dialog.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
    await dialog.getByText(t('en', 'addUser.emailError'), { exact: true }).waitFor({ state: 'visible' });
    await dialog.getByText(t('en', 'addUser.passwordError'), { exact: true }).waitFor({ state: 'visible' });
    expect(await dialog.getByLabel(t('en', 'addUser.email')).getAttribute('aria-invalid')).toBe('true');
    await screenshot(session, 'admin-add-user-errors');

    await dialog.getByLabel(t('en', 'addUser.email')).fill(email);
    await dialog.getByLabel(t('en', 'addUser.password')).fill('journey-pass-1');
    await dialog.getByLabel(t('en', 'addUser.role')).selectOption({ label: t('en', 'roles.done-admin') });
    await dialog.getByRole('group', { name: t('en', 'addUser.groups') }).getByLabel('Ward B', { exact: true }).check();
    await screenshot(session, 'admin-add-user-role-groups');
    await dialog.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
    await expectToast(page, 'adminView.userCreated');
    await dialog.waitFor({ state: 'detached' });
    // The username of a created user is their email; the row says who they are, on a phone as "header: value" lines.
    const created = rows.filter({ hasText: email });
    await created.waitFor({ state: 'visible' });
    await expect.poll(() => textOf(created)).toContain(`Erkki Esimerkki ${viewport.width}`);
    expect(await textOf(created)).toContain(t('en', 'roles.done-admin'));
    expect(await textOf(created)).toContain('Ward B');
    await screenshot(session, 'admin-users-details');

    // The admin's own account offers no Delete, and says why.
    const own = rows.filter({ hasText: DEMO.admin.username }).filter({ hasText: t('en', 'adminView.ownAccount') });
    await own.waitFor({ state: 'visible' });
    expect(await page.getByRole('button', { name: tWith('adminView.deleteItem', { name: DEMO.admin.username }), exact: true }).count()).toBe(0);

    await deleteRow(page, rows, email, 'adminView.userDeleted');
  });

  it('adds a contact and deletes it', async () => {
    const { page } = session;
    const name = `Eeva Journey ${viewport.width}`;
    await openAdminTab(session, 'contacts');
    const rows = page.getByTestId('contact-row');
    await rows.first().waitFor({ state: 'visible' });

    const dialog = await openAddModal(page, 'addContact.title');
    await dialog.getByLabel(t('en', 'addContact.contactTitle')).fill('Night shift lead');
    await dialog.getByLabel(t('en', 'addContact.name')).fill(name);
    await dialog.getByLabel(t('en', 'addContact.phone')).fill(`+358 40 555 ${viewport.width}`);
    await dialog.getByLabel(t('en', 'addContact.email')).fill(`eeva.journey.${viewport.width}@demo-hospital.example`);
    await dialog.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
    await expectToast(page, 'adminView.contactCreated');
    const row = rows.filter({ hasText: name });
    await row.waitFor({ state: 'visible' });
    expect(await textOf(row)).toContain('Night shift lead');

    await deleteRow(page, rows, name, 'adminView.contactDeleted');
  });

  it('assigns two rooms to a new group, sees them after a reload, moves them back and deletes the group', async () => {
    const { page } = session;
    const groupName = `E2E ward ${viewport.width}`;
    await openAdminTab(session, 'groups');
    const groupRows = page.getByTestId('group-row');
    await groupRows.first().waitFor({ state: 'visible' });
    const dialog = await openAddModal(page, 'addGroup.title');
    await dialog.getByLabel(t('en', 'addGroup.name')).fill(groupName);
    await dialog.getByRole('button', { name: t('en', 'common.add'), exact: true }).click();
    await expectToast(page, 'adminView.groupCreated');

    await page.getByRole('link', { name: tWith('adminView.manageGroupNamed', { name: groupName }) }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/admin/groups/'));
    await settle(page);
    await expect.poll(() => textOf(page.locator('h1'))).toBe(tWith('assignView.title', { name: groupName }));
    await page.getByRole('tab', { name: t('en', 'adminView.tab.locations') }).click();
    await page.waitForURL((url) => url.hash === '#locations');
    const table = page.getByTestId('assignment-table');
    await table.waitFor({ state: 'visible' });
    await expect.poll(() => textOf(table.locator('th').nth(1))).toBe(tWith('assignView.rooms', { group: groupName }));

    // A new group has no rooms: every room starts in the "another" column; take the first two.
    const assignPattern = tPattern('assignView.assignItem');
    const assignButtons = table.getByRole('button', { name: assignPattern });
    const rooms: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const label = (await assignButtons.first().getAttribute('aria-label')) ?? '';
      const room = assignPattern.exec(label)?.[1];
      if (!room) throw new Error(`unexpected assign button ${label}`);
      rooms.push(room);
      await assignButtons.first().click();
      await table.getByRole('button', { name: tWith('assignView.unassignItem', { name: room }), exact: true }).waitFor({ state: 'visible' });
    }
    await page.getByRole('button', { name: t('en', 'assignView.submit'), exact: true }).click();
    await expectToast(page, 'assignView.assignSuccess.add');
    await screenshot(session, 'group-rooms-assigned');

    // The server kept them: after a reload they are still members, in the group's column.
    await page.reload();
    await settle(page);
    await table.waitFor({ state: 'visible' });
    for (const room of rooms) {
      await table.getByRole('button', { name: tWith('assignView.unassignItem', { name: room }), exact: true }).waitFor({ state: 'visible' });
    }

    for (const room of rooms) await table.getByRole('button', { name: tWith('assignView.unassignItem', { name: room }), exact: true }).click();
    await page.getByRole('button', { name: t('en', 'assignView.submit'), exact: true }).click();
    await expectToast(page, 'assignView.assignSuccess.remove');
    await page.reload();
    await settle(page);
    await table.waitFor({ state: 'visible' });
    for (const room of rooms) {
      await table.getByRole('button', { name: tWith('assignView.assignItem', { name: room }), exact: true }).waitFor({ state: 'visible' });
    }
    expect(await table.getByRole('button', { name: tPattern('assignView.unassignItem') }).count()).toBe(0);

    await page.getByRole('button', { name: t('en', 'assignView.back'), exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/admin' && url.hash === '#groups');
    await groupRows.first().waitFor({ state: 'visible' });
    await deleteRow(page, groupRows, groupName, 'adminView.groupDeleted');
  });

  it('pauses and resumes a robot running a job, from its dialog, and the job follows', async () => {
    const { page } = session;
    // Ward B's robots: the operator journey drives UVD-1 and UVD-2.
    const robotName = viewport.name === 'desktop' ? 'UVD-3' : 'UVD-4';
    const jobName = `E2E robot controls ${viewport.width}`;
    const api = await apiSignIn(DEMO.org, DEMO.admin.username, DEMO.admin.password);
    const job = await startLongJob(api, robotName, jobName);
    try {
      await session.goto('/robots');
      const dialog = page.getByRole('dialog', { name: robotName });
      // A robot with a job drives to a room or disinfects it.
      const moving = new RegExp(`^(${t('en', 'robotStatus.driving')}|${t('en', 'robotStatus.disinfecting')})$`);
      const status = dialog.locator('dt', { hasText: t('en', 'robotTable.status') }).locator('xpath=following-sibling::dd[1]');
      const openRobot = async () => {
        await page.getByRole('button', { name: robotName, exact: true }).click();
        await dialog.waitFor({ state: 'visible' });
      };
      /** A control of the dialog, then its confirmation dialog's button of the same name, then the toast. */
      const command = async (key: 'robotControls.pause' | 'robotControls.play', confirmKey: string) => {
        await dialog.getByRole('button', { name: t('en', key), exact: true }).click();
        const confirm = page.getByRole('dialog', { name: tWith(confirmKey, { name: robotName }) });
        await confirm.waitFor({ state: 'visible' });
        await confirm.getByRole('button', { name: t('en', key), exact: true }).click();
        await expectToast(page, 'robotControls.commandSuccess');
        await confirm.waitFor({ state: 'detached' });
        await dialog.waitFor({ state: 'visible' });
      };
      const jobStatusIs = async (key: string) => {
        await session.goto(`/jobs?robot=${job.robot_id}&limit=50`);
        const row = page.getByTestId('job-row').filter({ hasText: jobName });
        await expect.poll(() => textOf(row.getByTestId('job-status'))).toBe(t('en', key));
      };

      await openRobot();
      // Behaviour §4: the controls are enabled only in Autonomous mode, which the simulated robots are in.
      await expect.poll(() => textOf(dialog.getByTestId('robot-mode'))).toBe(t('en', 'robotModes.2'));
      await expect.poll(() => dialog.getByRole('button', { name: t('en', 'robotControls.pause'), exact: true }).isEnabled()).toBe(true);
      await expect.poll(() => textOf(status)).toMatch(moving);

      await command('robotControls.pause', 'robotControls.confirm.pause');
      await expect.poll(() => textOf(status)).toBe(t('en', 'robotStatus.paused'));
      await screenshot(session, 'robot-paused');
      // The dialog's link lists this robot's jobs; its job shows as paused.
      const jobsLink = dialog.getByRole('link', { name: t('en', 'robotControls.showJobs') });
      expect(await jobsLink.getAttribute('href')).toBe(`/jobs?robot=${job.robot_id}`);
      await jobStatusIs('jobStatus.paused');

      await session.goto('/robots');
      await openRobot();
      await expect.poll(() => textOf(status)).toBe(t('en', 'robotStatus.paused'));
      await command('robotControls.play', 'robotControls.confirm.play');
      await expect.poll(() => textOf(status)).toMatch(moving);
      await jobStatusIs('jobStatus.disinfecting');
    } finally {
      await stopIfRunning(api, job.job_id);
    }
  });
});
