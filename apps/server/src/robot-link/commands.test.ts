/**
 * Job start, job commands and the job runner's handling of robot state, through real HTTP. These tests need no
 * robot link: robots here are offline (so starts are refused), and a running job is driven by feeding the
 * job runner the state messages a robot would publish. The robot-in-the-loop tests are in execution.test.ts.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Action, ActionChange, ApiError, DataFlag, Job, LogEntry, LogList } from '@uvd/contracts';
import { commandReplies, jobRooms, jobs, trajectoryPoints } from '../db/schema.ts';
import { COMMAND_REPLY_RETENTION_MS, pruneCommandReplies } from '../lib/idempotency.ts';
import { createJobRunner, type JobRunner } from './job-runner.ts';
import { createJobFor, disinfectState, executionWorld, promptInfo, robotState, type ExecutionWorld } from '../testing/execution-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';
import { openSse } from '../testing/live-fixtures.ts';

let server: TestServer;
let jobRunner: JobRunner;
beforeAll(async () => {
  server = await startTestServer({ schedulerPollMs: 50 });
  jobRunner = createJobRunner(server.context, (error) => {
    throw error;
  });
});
afterAll(async () => {
  await server.close();
});

const otherWorld = () => executionWorld(server, 1);

/** Marks the job Running as a start would (the robot link is not part of these tests). */
async function markRunning(jobId: string): Promise<void> {
  await server.context.db
    .update(jobs)
    .set({ status: 'Running', activeState: 'disinfecting', startedAt: new Date(Date.now() - 60_000) })
    .where(eq(jobs.id, jobId));
}

async function jobOf(w: ExecutionWorld, jobId: string): Promise<Job> {
  const response = await server.request('GET', `/api/jobs/job/${jobId}`, { token: w.admin.token, query: { extra_room_data: true } });
  expect(response.status).toBe(200);
  return Job.parse(response.body);
}

const roomStates = async (jobId: string) =>
  (await server.context.db.select().from(jobRooms).where(eq(jobRooms.jobId, jobId))).sort((a, b) => a.orderNo - b.orderNo).map((room) => room.state);

describe('POST /jobs/job/start', () => {
  it('refuses with 409 robot_offline when the robot is offline, and the job stays Scheduled', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const response = await server.request('POST', '/api/jobs/job/start', { token: w.admin.token, query: { job_id: job.job_id } });
    expect(response.status).toBe(409);
    expect(ApiError.parse(response.body)).toMatchObject({ error: 'robot_offline' });
    expect((await jobOf(w, job.job_id)).status).toBe('Scheduled');
  });

  it('refuses a job that runs or ended with 409 job_state', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    await markRunning(job.job_id);
    const response = await server.request('POST', '/api/jobs/job/start', { token: w.operator.token, query: { job_id: job.job_id } });
    expect(response.status).toBe(409);
    expect(ApiError.parse(response.body).error).toBe('job_state');
  });

  it('answers 400 naming job_id, 401 without a token, 404 for another organization', async () => {
    const w = await executionWorld(server);
    const bad = await server.request('POST', '/api/jobs/job/start', { token: w.admin.token, query: { job_id: 'nope' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(ApiError.parse(bad.body))).toContain('job_id');
    const job = await createJobFor(server, w);
    expect((await server.request('POST', '/api/jobs/job/start', { query: { job_id: job.job_id } })).status).toBe(401);
    const other = await otherWorld();
    const foreign = await server.request('POST', '/api/jobs/job/start', { token: other.admin.token, query: { job_id: job.job_id } });
    expect(foreign.status).toBe(404);
  });
});

describe('POST /command/job/{job_id}', () => {
  it('stops a Scheduled job at once: Completed, performed, aborted, its rooms not reached, and no log', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const stream = await openSse(server.url, '/api/jobs/v2/jobs/stream', { token: w.admin.token, query: { job_list: job.job_id } });
    const response = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.operator.token, query: { command: 'stop' } });
    expect(response.status).toBe(200);
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    const changed = await stream.waitFor((frame) => frame.event === 'job_change');
    expect(Job.parse(JSON.parse(changed.data))).toMatchObject({ status: 'Completed', performed: true, completion_status: 'aborted' });
    stream.close();
    const ended = await jobOf(w, job.job_id);
    expect(ended.rooms.map((room) => room.state)).toEqual(['not_reached', 'not_reached', 'not_reached']);
    // It never ran: no log claims it did (one dated at its future start, ending before it began), and no push.
    expect((await server.request('GET', `/api/log/${job.job_id}`, { token: w.admin.token })).status).toBe(404);
    const logs = LogList.parse((await server.request('GET', '/api/log', { token: w.admin.token, query: { from_date: '2000-01-01' } })).body);
    expect(logs.payload.map((entry) => entry.job_id)).not.toContain(job.job_id);
    const events = await server.context.bus.replay(w.orgId, 'jobs', 0);
    expect(events.filter((event) => event.key === job.job_id).map((event) => event.type)).toEqual(['job_change', 'job_change']);
  });

  it('refuses pause and resume of a job that is not running, and commands to an offline robot but stop', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const pause = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command: 'pause' } });
    expect(pause.status).toBe(409);
    expect(ApiError.parse(pause.body).error).toBe('job_state');
    await markRunning(job.job_id);
    for (const command of ['pause', 'resume', 'start']) {
      const response = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command } });
      expect(response.status).toBe(409);
      expect(ApiError.parse(response.body).error).toBe(command === 'start' ? 'job_state' : 'robot_offline');
    }
    expect((await jobOf(w, job.job_id)).active_state).toBe('disinfecting');
    // Stop ends the job of an unreachable robot (issue #22: it could not be ended by anyone before).
    const stop = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command: 'stop' } });
    expect(stop.status).toBe(200);
    expect(await jobOf(w, job.job_id)).toMatchObject({ status: 'Completed', completion_status: 'interrupted' });
  });

  it('answers a retried command with the same Idempotency-Key once, with the first reply', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const send = () =>
      server.request('POST', `/api/command/job/${job.job_id}`, {
        token: w.admin.token,
        query: { command: 'stop' },
        headers: { 'idempotency-key': `stop-${job.job_id}` },
      });
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(DataFlag.parse(second.body)).toEqual({ data: true });
    // Without the key the same command is a new one, refused now that the job has ended.
    const again = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command: 'stop' } });
    expect(again.status).toBe(409);
  });

  it('answers 400 naming command, 401 without a token, 404 for another organization or a hidden robot', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const bad = await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command: 'jump' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(ApiError.parse(bad.body))).toContain('command');
    const badId = await server.request('POST', '/api/command/job/123', { token: w.admin.token, query: { command: 'stop' } });
    expect(badId.status).toBe(400);
    expect((await server.request('POST', `/api/command/job/${job.job_id}`, { query: { command: 'stop' } })).status).toBe(401);
    const other = await otherWorld();
    const foreign = await server.request('POST', `/api/command/job/${job.job_id}`, { token: other.admin.token, query: { command: 'stop' } });
    expect(foreign.status).toBe(404);
    const stranger = await server.createUser(w.orgId, ['done-teleoperator']);
    const hidden = await server.request('POST', `/api/command/job/${job.job_id}`, { token: stranger.token, query: { command: 'stop' } });
    expect(hidden.status).toBe(404);
    expect((await jobOf(w, job.job_id)).status).toBe('Scheduled');
  });
});

describe('a finished job', () => {
  /** A job the robot ran to the end (every room done), with its log. */
  async function finishedJob(w: ExecutionWorld): Promise<Job> {
    const job = await createJobFor(server, w);
    await markRunning(job.job_id);
    const id = job.job_id;
    await jobRunner.handleState(
      w.robot,
      robotState(w, { orderId: id, actionStates: [0, 1, 2].map((orderNo) => disinfectState(id, orderNo, 'FINISHED')) }),
    );
    const ended = await jobOf(w, id);
    expect(ended).toMatchObject({ status: 'Completed', completion_status: 'completed' });
    return ended;
  }

  const expectFinished = (response: { status: number; body: unknown }, job: Job) => {
    expect(response.status).toBe(409);
    const error = ApiError.parse(response.body);
    expect(error.error).toBe('job_finished');
    expect(error.message).toContain(job.name);
    expect(error.details).toEqual({ job_id: job.job_id });
  };

  it('is immutable: PUT, DELETE, start, every job command and its notes answer 409 job_finished and change nothing', async () => {
    const w = await executionWorld(server);
    const job = await finishedJob(w);
    const logBefore = LogEntry.parse((await server.request('GET', `/api/log/${job.job_id}`, { token: w.admin.token })).body);
    const token = w.admin.token;
    const rewrite = {
      name: 'Rewritten',
      notes: 'never ran like this',
      start_time: new Date(Date.now() + 48 * 3600_000).toISOString(),
      rooms: [{ room_id: w.roomIds[2] ?? '', order_no: 0, dose: 10 }],
    };
    expectFinished(await server.request('PUT', `/api/jobs/jobs/${job.job_id}`, { token, body: rewrite }), job);
    expectFinished(await server.request('DELETE', `/api/jobs/jobs/${job.job_id}`, { token }), job);
    expectFinished(await server.request('POST', '/api/jobs/job/start', { token, query: { job_id: job.job_id } }), job);
    for (const command of ['start', 'pause', 'resume', 'stop']) {
      expectFinished(await server.request('POST', `/api/command/job/${job.job_id}`, { token, query: { command } }), job);
    }
    expectFinished(await server.request('PATCH', `/api/jobs/job/${job.job_id}/notes`, { token, body: { notes: 'edited' } }), job);

    const after = await jobOf(w, job.job_id);
    expect(after).toEqual(job);
    expect(LogEntry.parse((await server.request('GET', `/api/log/${job.job_id}`, { token })).body)).toEqual(logBefore);
  });

  it("keeps its log's notes editable (behaviour §2), without touching the job", async () => {
    const w = await executionWorld(server);
    const job = await finishedJob(w);
    const edited = await server.request('PATCH', `/api/log/${job.job_id}/notes`, { token: w.operator.token, body: { notes: 'Door 2 was locked' } });
    expect(LogEntry.parse(edited.body).notes).toBe('Door 2 was locked');
    expect(LogEntry.parse((await server.request('GET', `/api/log/${job.job_id}`, { token: w.admin.token })).body).notes).toBe('Door 2 was locked');
    expect((await jobOf(w, job.job_id)).notes).toBe(job.notes);
  });

  it('stopped before it began is immutable too: PUT cannot give it a new start and rooms', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    expect((await server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command: 'stop' } })).status).toBe(200);
    const stopped = await jobOf(w, job.job_id);
    const rewrite = {
      name: 'Rewritten',
      start_time: new Date(Date.now() + 48 * 3600_000).toISOString(),
      rooms: [{ room_id: w.roomIds[0] ?? '', order_no: 0, dose: 10 }],
    };
    expectFinished(await server.request('PUT', `/api/jobs/jobs/${job.job_id}`, { token: w.admin.token, body: rewrite }), stopped);
    expect(await jobOf(w, job.job_id)).toEqual(stopped);
  });
});

describe('robot state → job progress', () => {
  it('records room results, pause, the thinned trajectory, and ends the job with its log', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    await markRunning(job.job_id);
    const id = job.job_id;
    const at = (x: number, y: number) => ({ x, y, theta: 0, mapId: w.floorId, positionInitialized: true });
    const stream = await openSse(server.url, '/api/jobs/v2/jobs/stream', { token: w.operator.token, query: { job_list: id } });

    await jobRunner.handleState(w.robot, robotState(w, { orderId: id, agvPosition: at(0, -2), actionStates: [disinfectState(id, 0, 'RUNNING')] }));
    expect(await roomStates(id)).toEqual(['active', 'pending', 'pending']);
    await jobRunner.handleState(w.robot, robotState(w, { orderId: id, paused: true, agvPosition: at(0.1, -2), actionStates: [disinfectState(id, 0, 'PAUSED')] }));
    expect((await jobOf(w, id)).active_state).toBe('paused');
    await jobRunner.handleState(
      w.robot,
      robotState(w, {
        orderId: id,
        agvPosition: at(2, 2),
        actionStates: [disinfectState(id, 0, 'FINISHED'), disinfectState(id, 1, 'FAILED', 'not_ready'), disinfectState(id, 2, 'RUNNING')],
      }),
    );
    expect(await roomStates(id)).toEqual(['done', 'not_ready', 'active']);
    const running = await jobOf(w, id);
    expect(running).toMatchObject({ status: 'Running', active_state: 'disinfecting', performed: false });
    // The same state again (a duplicate or a second server process) changes nothing.
    await jobRunner.handleState(w.robot, robotState(w, { orderId: id, agvPosition: at(2, 2), actionStates: [disinfectState(id, 0, 'FINISHED')] }));
    expect((await server.context.db.select().from(trajectoryPoints).where(eq(trajectoryPoints.jobId, id))).length).toBe(2);

    await jobRunner.handleState(
      w.robot,
      robotState(w, {
        orderId: id,
        agvPosition: at(12, 2),
        actionStates: [disinfectState(id, 0, 'FINISHED'), disinfectState(id, 1, 'FAILED', 'not_ready'), disinfectState(id, 2, 'FAILED', 'not_reached')],
      }),
    );
    const ended = await jobOf(w, id);
    expect(ended).toMatchObject({ status: 'Completed', performed: true, active_state: null });
    const finished = await stream.waitFor((frame) => frame.event === 'job_change' && Job.parse(JSON.parse(frame.data)).performed);
    expect(Job.parse(JSON.parse(finished.data)).job_id).toBe(id);
    stream.close();

    const log = await server.request('GET', `/api/log/${id}`, { token: w.operator.token });
    const entry = LogEntry.parse(log.body);
    expect(entry).toMatchObject({ completion_status: 'failed', has_trajectory: true, robot_id: w.robotId });
    expect(entry.attributes.rooms.map((room) => [room.order, room.state, room.dose])).toEqual([
      [0, 'done', 10],
      [1, 'not_ready', 10],
      [2, 'not_reached', 10],
    ]);
    const withPath = await server.request('GET', `/api/jobs/job/${id}`, { token: w.admin.token, query: { extra_navigation_data: true } });
    expect(Job.parse(withPath.body).trajectory?.map((point) => [point.x, point.y, point.floor_id])).toEqual([
      [0, -2, w.floorId],
      [2, 2, w.floorId],
      [12, 2, w.floorId],
    ]);
  });

  it('ignores states of another order or of a job that is not running', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    await jobRunner.handleState(w.robot, robotState(w, { orderId: job.job_id, actionStates: [disinfectState(job.job_id, 0, 'FINISHED')] }));
    expect(await roomStates(job.job_id)).toEqual(['pending', 'pending', 'pending']);
  });
});

describe('operator prompts', () => {
  it('turns a prompt into one action, serves it, streams it, and resolves it when the robot stops asking', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    await markRunning(job.job_id);
    const id = job.job_id;
    const room = w.roomIds[1] ?? '';
    const none = await server.request('GET', '/api/action/action', { token: w.operator.token, query: { job_id: id } });
    expect(none.status).toBe(204);

    const stream = await openSse(server.url, '/api/action/action/stream', { token: w.operator.token, query: { job_list: id } });
    const asking = robotState(w, { orderId: id, information: [promptInfo('prompt-1', 'wait_to_enter', room)] });
    await jobRunner.handleState(w.robot, asking);
    await jobRunner.handleState(w.robot, robotState(w, { orderId: id, information: [promptInfo('prompt-1', 'wait_to_enter', room)] }));
    const open = await server.request('GET', '/api/action/action', { token: w.operator.token, query: { job_id: id } });
    expect(open.status).toBe(200);
    const action = Action.parse(open.body);
    expect(action).toMatchObject({ job_id: id, button: { text: 'wait_to_enter', disabled: false } });
    const created = ActionChange.parse(JSON.parse((await stream.waitFor((frame) => frame.event === 'action_change')).data));
    expect(created).toMatchObject({ action_id: action.action_id, resolved: false });

    // The robot is offline here, so the decision cannot be sent: refused, and the button stays enabled.
    const decision = await server.request('POST', '/api/action/action/confirm', {
      token: w.operator.token,
      body: { action_id: action.action_id, confirm: true },
    });
    expect(decision.status).toBe(409);
    expect(ApiError.parse(decision.body).error).toBe('robot_offline');

    await jobRunner.handleState(w.robot, robotState(w, { orderId: id }));
    const resolved = await stream.waitFor(
      (frame) => frame.event === 'action_change' && ActionChange.parse(JSON.parse(frame.data)).resolved,
    );
    expect(ActionChange.parse(JSON.parse(resolved.data))).toMatchObject({ action_id: action.action_id, button: { disabled: true } });
    stream.close();
    const after = await server.request('GET', '/api/action/action', { token: w.operator.token, query: { job_id: id } });
    expect(after.status).toBe(204);
  });

  it('answers 400 naming the field, 401 without a token, 404 for another organization', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const bad = await server.request('GET', '/api/action/action', { token: w.admin.token, query: { job_id: 'x' } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('job_id');
    const badBody = await server.request('POST', '/api/action/action/confirm', { token: w.admin.token, body: { action_id: job.job_id } });
    expect(badBody.status).toBe(400);
    expect(JSON.stringify(badBody.body)).toContain('confirm');
    expect((await server.request('GET', '/api/action/action', { query: { job_id: job.job_id } })).status).toBe(401);
    expect((await server.request('POST', '/api/action/action/confirm', { body: { action_id: job.job_id, confirm: true } })).status).toBe(401);
    const other = await otherWorld();
    expect((await server.request('GET', '/api/action/action', { token: other.admin.token, query: { job_id: job.job_id } })).status).toBe(404);
    const unknown = await server.request('POST', '/api/action/action/confirm', { token: w.admin.token, body: { action_id: job.job_id, confirm: true } });
    expect(unknown.status).toBe(404);
  });
});

describe('low battery', () => {
  it('publishes battery_low once each time the battery falls below 20 %', async () => {
    const w = await executionWorld(server);
    const lowEvents = async () =>
      (await server.context.bus.replay(w.orgId, 'robots', 0, 100, [w.robotId])).filter((event) => event.type === 'battery_low');
    for (const [battery, charging] of [
      [25, false],
      [19.5, false],
      [15, false],
      [30, true],
      [18, false],
    ] as const) {
      await jobRunner.handleState(w.robot, robotState(w, { batteryState: { batteryCharge: battery, charging } }));
    }
    const published = await lowEvents();
    expect(published.map((event) => event.payload)).toEqual([
      { robot_id: w.robotId, battery: 19.5, charging_status: 0 },
      { robot_id: w.robotId, battery: 18, charging_status: 0 },
    ]);
  });
});

describe('GET /action/action/stream', () => {
  it('answers 401 without a token and shows a teleoperator only the actions of their robots', async () => {
    const w = await executionWorld(server);
    const refused = await openSse(server.url, '/api/action/action/stream');
    expect(refused.status).toBe(401);
    const job = await createJobFor(server, w);
    await markRunning(job.job_id);
    const stranger = await server.createUser(w.orgId, ['done-teleoperator']);
    const other = await otherWorld();
    const strangerStream = await openSse(server.url, '/api/action/action/stream', { token: stranger.token });
    const otherStream = await openSse(server.url, '/api/action/action/stream', { token: other.admin.token });
    const operatorStream = await openSse(server.url, '/api/action/action/stream', { token: w.operator.token });
    await jobRunner.handleState(w.robot, robotState(w, { orderId: job.job_id, information: [promptInfo('p-9', 'wait', w.roomIds[0] ?? '')] }));
    const seen = ActionChange.parse(JSON.parse((await operatorStream.waitFor((frame) => frame.event === 'action_change')).data));
    expect(seen).toMatchObject({ job_id: job.job_id, robot_id: w.robotId, button: { text: 'wait' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(strangerStream.frames.some((frame) => frame.event === 'action_change')).toBe(false);
    expect(otherStream.frames.some((frame) => frame.event === 'action_change')).toBe(false);
    for (const stream of [strangerStream, otherStream, operatorStream]) stream.close();
  });
});

describe('a robot that lost its order', () => {
  it('ends the Running job as failed as soon as the robot, having reported its order, reports no order', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    // Just started: the grace for a robot not yet on the order does not hold once it reported it.
    await server.context.db.update(jobs).set({ status: 'Running', startedAt: new Date() }).where(eq(jobs.id, job.job_id));
    const paused = robotState(w, { orderId: job.job_id, paused: true, actionStates: [disinfectState(job.job_id, 0, 'FINISHED')] });
    await jobRunner.handleState(w.robot, paused);
    expect(await jobOf(w, job.job_id)).toMatchObject({ status: 'Running', active_state: 'paused' });
    // Restarted, the robot reports an empty order: the job no longer shows paused on a robot that does not have it.
    await jobRunner.handleState(w.robot, robotState(w, { orderId: '' }));
    expect(await jobOf(w, job.job_id)).toMatchObject({ status: 'Completed', completion_status: 'failed' });
    expect(await jobRunner.sweepLostOrders()).toEqual([]);
    const log = LogEntry.parse((await server.request('GET', `/api/log/${job.job_id}`, { token: w.admin.token })).body);
    expect(log.completion_status).toBe('failed');
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['done', 'not_reached', 'not_reached']);
    expect(Date.parse(log.endtime ?? '')).toBe(Date.parse(paused.timestamp));
  });

  it('ends a Running job whose robot never reported its order once it reports another long after the start', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    await markRunning(job.job_id);
    await jobRunner.handleState(w.robot, robotState(w, { orderId: '' }));
    expect(await jobRunner.sweepLostOrders()).toEqual([job.job_id]);
    const log = LogEntry.parse((await server.request('GET', `/api/log/${job.job_id}`, { token: w.admin.token })).body);
    expect(log.completion_status).toBe('failed');
    expect(log.attributes.rooms.map((room) => room.state)).toEqual(['not_reached', 'not_reached', 'not_reached']);
  });

  it('leaves a job just started alone while its robot has not reported the order yet', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    await server.context.db.update(jobs).set({ status: 'Running', startedAt: new Date() }).where(eq(jobs.id, job.job_id));
    await jobRunner.handleState(w.robot, robotState(w, { orderId: '' }));
    expect(await jobRunner.sweepLostOrders()).toEqual([]);
    expect((await jobOf(w, job.job_id)).status).toBe('Running');
  });
});

describe('stored command replies', () => {
  it('are pruned after the retention, and a key used again afterwards is a new command', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const key = `old-${job.job_id}`;
    const send = () =>
      server.request('POST', `/api/command/job/${job.job_id}`, { token: w.admin.token, query: { command: 'stop' }, headers: { 'idempotency-key': key } });
    expect((await send()).status).toBe(200);
    await server.context.db
      .update(commandReplies)
      .set({ createdAt: new Date(Date.now() - COMMAND_REPLY_RETENTION_MS - 1000) })
      .where(eq(commandReplies.orgId, w.orgId));
    expect(await pruneCommandReplies(server.context.db, new Date(Date.now() - COMMAND_REPLY_RETENTION_MS))).toBeGreaterThanOrEqual(1);
    expect((await send()).status).toBe(409);
  });

  it('refuses an empty Idempotency-Key with 400 naming the header', async () => {
    const w = await executionWorld(server);
    const job = await createJobFor(server, w);
    const response = await server.request('POST', `/api/command/job/${job.job_id}`, {
      token: w.admin.token,
      query: { command: 'stop' },
      headers: { 'idempotency-key': ' ' },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(ApiError.parse(response.body))).toContain('Idempotency-Key');
  });
});
