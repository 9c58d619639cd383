import { useMutation } from '@tanstack/react-query';
import { postRobotCommand } from '@uvd/contracts';
import type { RobotCommand } from '@uvd/contracts';
import { useApi } from '../../../lib/api-context.tsx';
import { commandParts } from '../../../lib/command.ts';

export interface RobotCommandInput {
  robotId: string;
  command: RobotCommand;
}

/**
 * POST /command/{robot_id}?command=…; resolves true only when the reply's data is truthy (behaviour §7: a command
 * response with a falsy data value is a failure). One Idempotency-Key per click, reused by its retries.
 */
export const useRobotCommand = () => {
  const api = useApi();
  return useMutation({
    mutationFn: async ({ robotId, command }: RobotCommandInput): Promise<boolean> => {
      const reply = await api.request(postRobotCommand, { params: { robot_id: robotId }, query: { command }, ...commandParts() });
      return reply.data;
    },
  });
};
