import { useMutation, useQueryClient } from '@tanstack/react-query';
import { commandJob, confirmAction, deleteJob, postRobotCommand, startJobNow, updateRoomReadiness } from '@uvd/contracts';
import type { Action, JobList, WaitingActionList } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { commandParts } from '../../../lib/command.ts';
import { actionKey, jobListsKey, waitingActionsKey } from './jobs-query.ts';

/** The job list row commands; each has its behaviour §8 toast keys. */
export type JobCommandKind = 'start' | 'pause' | 'resume' | 'stop' | 'home' | 'delete';

/**
 * start → POST /jobs/job/start?job_id=, pause/resume/stop → POST /command/job/{id}?command=, home → POST
 * /command/{robot_id}?command=home (the job's robot), delete → DELETE /jobs/jobs/{id}. Resolves true only when the
 * reply's data is truthy (behaviour §7: falsy data is a failure). Each command (one click) carries its own
 * Idempotency-Key, which its retries reuse.
 */
export const useJobCommand = () => {
  const api = useApi();
  return useMutation({
    mutationFn: async ({ jobId, robotId, kind }: { jobId: string; robotId: string; kind: JobCommandKind }): Promise<boolean> => {
      if (kind === 'delete') return (await api.request(deleteJob, { params: { id: jobId } })).data;
      const command = commandParts();
      if (kind === 'start') return (await api.request(startJobNow, { query: { job_id: jobId }, ...command })).data;
      if (kind === 'home') {
        return (await api.request(postRobotCommand, { params: { robot_id: robotId }, query: { command: 'home' }, ...command })).data;
      }
      return (await api.request(commandJob, { params: { job_id: jobId }, query: { command: kind }, ...command })).data;
    },
  });
};

const setReady = (list: JobList | undefined, roomId: string, ready: boolean): JobList | undefined =>
  list && {
    ...list,
    payload: list.payload.map((job) =>
      job.rooms.some((room) => room.room_id === roomId)
        ? { ...job, rooms: job.rooms.map((room) => (room.room_id === roomId ? { ...room, ready_for_disinfection: ready } : room)) }
        : job,
    ),
  };

/** Behaviour §4: the readiness toggle is applied optimistically to every cached list and rolled back on error. */
export const useRoomReadiness = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ roomId, ready }: { roomId: string; ready: boolean }) =>
      api.request(updateRoomReadiness, { body: { rooms: [{ room_id: roomId, ready_for_disinfection: ready }] } }),
    onMutate: async ({ roomId, ready }) => {
      await queryClient.cancelQueries({ queryKey: jobListsKey });
      const previous = queryClient.getQueriesData<JobList>({ queryKey: jobListsKey });
      queryClient.setQueriesData<JobList>({ queryKey: jobListsKey }, (list) => setReady(list, roomId, ready));
      return { previous };
    },
    onError: (_error, _input, context) => {
      for (const [key, list] of context?.previous ?? []) queryClient.setQueryData(key, list);
    },
  });
};

export interface ActionDecisionInput {
  actionId: string;
  jobId: string;
  confirm: boolean;
}

/**
 * POST /action/action/confirm, from a job's row or a push's toast; once sent, the job's cached action is disabled
 * (and so hidden, behaviour §4).
 */
export const useActionDecision = () => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ actionId, confirm }: ActionDecisionInput): Promise<boolean> =>
      (await api.request(confirmAction, { body: { action_id: actionId, confirm }, ...commandParts() })).data,
    onSuccess: (_ok, { actionId, jobId }) => {
      queryClient.setQueryData<Action | null>(actionKey(jobId), (cached) =>
        cached?.action_id === actionId ? { ...cached, button: { ...cached.button, disabled: true } } : cached,
      );
      queryClient.setQueryData<WaitingActionList>(waitingActionsKey, (list) =>
        list ? { payload: list.payload.filter((action) => action.action_id !== actionId) } : list,
      );
    },
  });
};
