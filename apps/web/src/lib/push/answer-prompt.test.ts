import { confirmAction } from '@uvd/contracts';
import type { ActionDecision } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { sessionUser, testConfig } from '../../testing/fixtures.ts';
import { createApiClient } from '../api-client.ts';
import type { AuthState } from '../auth/auth-client.ts';
import { createI18n } from '../i18n.ts';
import { answerPromptFromNotification } from './answer-prompt.ts';
import { promptPushFixture, PUSH_ACTION, PUSH_JOB } from '../../testing/push-fixtures.ts';

const JOB = PUSH_JOB;
const ACTION = PUSH_ACTION;
const message = promptPushFixture({ body: 'Room 101' });
const decision: ActionDecision = { action_id: ACTION, confirm: true, source: 'notification' };

/** The mobile shell woken by a prompt's button, its session restored as `state`. */
const wake = async (state: AuthState, network: FakeNetwork) => {
  const opened: string[] = [];
  const api = createApiClient(testConfig(), { fetch: network.fetch, getAccessToken: () => 'access' });
  const auth = { initialize: () => Promise.resolve(), getSnapshot: () => state };
  const i18n = await createI18n({ language: 'en' });
  await answerPromptFromNotification({ api, auth, i18n, open: (path) => opened.push(path) }, decision, message);
  return opened;
};

describe("the mobile shell's prompt buttons", () => {
  it("send the decision with the console's session of the push's organization", async () => {
    const network = new FakeNetwork().on(confirmAction, { status: 200, body: { data: true } });
    const opened = await wake({ status: 'authenticated', user: sessionUser() }, network);
    expect(network.callsTo(confirmAction).map((request) => JSON.parse(request.body) as unknown)).toEqual([decision]);
    expect(network.callsTo(confirmAction)[0]?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(opened).toEqual([]);
  });

  it('open the job instead when signed out, signed in elsewhere, or refused', async () => {
    const refused = new FakeNetwork().on(confirmAction, { status: 403, body: { error: 'forbidden', message: 'Not your robot' } });
    expect(await wake({ status: 'unauthenticated', user: null }, refused)).toEqual([`/job/${JOB}`]);
    expect(await wake({ status: 'authenticated', user: sessionUser(['done-teleoperator'], { realm: 'northwind' }) }, refused)).toEqual([`/job/${JOB}`]);
    expect(refused.callsTo(confirmAction)).toHaveLength(0);
    expect(await wake({ status: 'authenticated', user: sessionUser() }, refused)).toEqual([`/job/${JOB}`]);
    expect(refused.callsTo(confirmAction)).toHaveLength(1);
  });
});
