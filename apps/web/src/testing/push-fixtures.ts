import { PushMessage } from '@uvd/contracts';

export const PUSH_JOB = '1c9f3a52-51d4-4e0c-9d0f-000000000001';
export const PUSH_ACTION = '2d9f3a52-51d4-4e0c-9d0f-000000000002';

/** A prompt push as the server sends it (contracts PushMessage), for the demo organization. */
export const promptPushFixture = (overrides: Partial<PushMessage> = {}): PushMessage =>
  PushMessage.parse({
    title: 'UVD-1 is waiting',
    body: 'Confirm the room is empty to enter: Room 101 (Morning round)',
    icon: '/icons/icon-192.png',
    type: 'job',
    related_id: PUSH_JOB,
    kind: 'prompt',
    push_id: 'push-1',
    url: `/job/${PUSH_JOB}`,
    realm: 'demo',
    action_id: PUSH_ACTION,
    choices: ['confirm', 'skip'],
    choice_labels: { confirm: 'Confirm', skip: 'Skip' },
    sent_at: '2026-11-20T09:59:58Z',
    ...overrides,
  });
