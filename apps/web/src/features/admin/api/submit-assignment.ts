import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AssignTab } from '../../../config/paths.ts';
import type { ApiClient } from '../../../lib/api-client.ts';
import { useApi } from '../../../lib/api-context.tsx';
import { addRobotsToGroup } from './add-robots-to-group.ts';
import { addRoomsToGroup } from './add-rooms-to-group.ts';
import { addUsersToGroup } from './add-users-to-group.ts';
import { assignmentKey, type Assignment } from './get-assignment.ts';
import { removeRobotsFromGroup } from './remove-robots-from-group.ts';
import { removeRoomsFromGroup } from './remove-rooms-from-group.ts';
import { removeUserFromGroup } from './remove-user-from-group.ts';

export interface Change {
  kind: AssignTab;
  added: string[];
  removed: string[];
  /** The member ids after the change. */
  memberIds: string[];
}

const apply = async (api: ApiClient, groupId: string, { kind, added, removed }: Change): Promise<void> => {
  if (kind === 'users') {
    if (added.length > 0) await addUsersToGroup(api, groupId, added);
    for (const userId of removed) await removeUserFromGroup(api, groupId, userId);
  } else if (kind === 'robots') {
    if (added.length > 0) await addRobotsToGroup(api, groupId, added);
    if (removed.length > 0) await removeRobotsFromGroup(api, groupId, removed);
  } else {
    if (added.length > 0) await addRoomsToGroup(api, groupId, added);
    if (removed.length > 0) await removeRoomsFromGroup(api, groupId, removed);
  }
};

/**
 * Sends every tab's moves. On success the cache takes the submitted lists (no flash back while it refetches);
 * either way the lists are read again, since a failure may have applied part of the changes.
 */
export const useSubmitAssignment = (groupId: string) => {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (changes: Change[]) => {
      for (const change of changes) await apply(api, groupId, change);
    },
    onSuccess: (_, changes) => {
      for (const change of changes) {
        queryClient.setQueryData(assignmentKey(change.kind, groupId), (previous: Assignment | undefined) =>
          previous ? { ...previous, memberIds: change.memberIds } : previous,
        );
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['admin', 'assignment', groupId] }),
  });
};
