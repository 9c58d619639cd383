// Contracts of the actions backend (behaviour §3, §7): the robot's questions to the operator.
import { z } from 'zod';
import { DataFlag, Id, Timestamp } from './common.ts';
import { commaIdListQuery, EventStreamReply, LastEventId } from './live.ts';
import { defineRoute } from './route.ts';

/** Behaviour §3 action button texts. */
export const ActionButtonText = z.enum([
  'skip',
  'wait',
  'wait_to_enter',
  'wait_next_room',
  'wait_to_disinfect',
  'go_home',
  'continue',
  'charge',
]);
export type ActionButtonText = z.infer<typeof ActionButtonText>;

/** Behaviour §3 action. `disabled` once a decision was sent (behaviour §4: "disables the button"), or the robot withdrew it. */
export const Action = z.object({
  action_id: Id,
  job_id: Id,
  button: z.object({ text: ActionButtonText, disabled: z.boolean() }),
});
export type Action = z.infer<typeof Action>;

/**
 * Payload of an `action_change` event: the action, its robot, and `resolved` once the robot no longer asks
 * (the client hides a disabled or resolved action).
 */
export const ActionChange = Action.extend({ robot_id: Id, resolved: z.boolean() });
export type ActionChange = z.infer<typeof ActionChange>;

/** Where an operator answered a prompt: in the console, or from a notification's button (kept in the job's log). */
export const DecisionSource = z.enum(['console', 'notification']);
export type DecisionSource = z.infer<typeof DecisionSource>;

export const ActionDecision = z.object({ action_id: Id, confirm: z.boolean(), source: DecisionSource.default('console') });
export type ActionDecision = z.infer<typeof ActionDecision>;

export const getAction = defineRoute({
  method: 'GET',
  path: '/action/action',
  summary: "The job's open action; 204 when there is none",
  tags: ['actions'],
  querystring: z.object({ job_id: Id }),
  response: { 200: Action, 204: z.null().describe('No open action') },
});

export const confirmAction = defineRoute({
  method: 'POST',
  path: '/action/action/confirm',
  summary: "Send the operator's decision (confirm or skip) to the robot and disable the button; 409 when already answered",
  tags: ['actions'],
  body: ActionDecision,
  response: { 200: DataFlag },
});

/**
 * Extension: a prompt waiting for an answer, named for an operator on any screen (the console's banner): its job,
 * robot and room (null when the robot named no room of the job).
 */
export const WaitingAction = Action.extend({
  job_name: z.string(),
  robot_id: Id,
  robot_name: z.string(),
  room_id: Id.nullable(),
  room_name: z.string().nullable(),
  created_at: Timestamp,
});
export type WaitingAction = z.infer<typeof WaitingAction>;

export const WaitingActionList = z.object({ payload: z.array(WaitingAction) });
export type WaitingActionList = z.infer<typeof WaitingActionList>;

export const listWaitingActions = defineRoute({
  method: 'GET',
  path: '/action/actions/waiting',
  summary: 'Every prompt still waiting for an answer (not answered, still asked) of the robots the caller sees, oldest first',
  tags: ['actions'],
  response: { 200: WaitingActionList },
});

export const ActionStreamQuery = z.object({
  job_list: commaIdListQuery(Id),
  last_event_id: LastEventId.optional(),
});

export const streamActions = defineRoute({
  method: 'GET',
  path: '/action/action/stream',
  summary: 'Live action changes (action_change) of the listed jobs, or of every job the caller may see',
  tags: ['actions', 'live'],
  querystring: ActionStreamQuery,
  response: { 200: EventStreamReply },
  produces: 'text/event-stream',
});
