import type { FastifyPluginAsync } from 'fastify';
import {
  addRoomsToGroup,
  getAdminGroupRooms,
  getAdminRooms,
  getBuildings,
  getFloorMap,
  getFloorMapMetadata,
  getFloors,
  getRoom,
  getRoomReadiness,
  getRooms,
  removeRoomsFromGroup,
  updateRoomReadiness,
} from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { toJobs } from '../jobs/repository.ts';
import { badRequest } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { sendReadinessToRunningJobs } from '../robot-link/readiness.ts';
import * as repository from './repository.ts';

/** The rooms backend (behaviour §7): buildings, floors, floor maps, rooms, readiness and group rooms. */
export const roomsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  registerRoute(app, getBuildings, async ({ query, principal }) => ({
    data: await repository.listBuildings(ctx.db, principal, query),
  }));

  registerRoute(app, getFloors, async ({ query, principal }) => ({
    data: await repository.listFloors(ctx.db, principal, {
      buildingId: query.building_id,
      offset: query.offset,
      limit: query.limit,
    }),
  }));

  registerRoute(app, getFloorMap, async ({ query, principal, reply }) => {
    const svg = await repository.floorMapSvg(ctx.db, principal, query.floor_id);
    // A non-JSON content type makes Fastify send the string as is instead of JSON-encoding it.
    void reply.type('image/svg+xml; charset=utf-8').header('cache-control', 'private, max-age=300');
    return svg;
  });

  registerRoute(app, getFloorMapMetadata, async ({ query, principal }) =>
    repository.floorMapMetadata(ctx.db, principal, query.floor_id),
  );

  registerRoute(app, getRoom, async ({ params, principal }) => repository.getRoom(ctx.db, principal, params.id));

  registerRoute(app, getRooms, async ({ query, principal }) => ({
    data: await repository.listRooms(ctx.db, principal, {
      floorIds: query.floor_id_list,
      offset: query.offset,
      limit: query.limit,
    }),
  }));

  registerRoute(app, getAdminRooms, async ({ query, principal }) => ({
    data: await repository.listRooms(ctx.db, principal, { floorIds: [], offset: query.offset, limit: query.limit }),
  }));

  registerRoute(app, getAdminGroupRooms, async ({ query, principal }) => ({
    data: await repository.listGroupRooms(ctx.db, principal, {
      groupIds: query.groups,
      offset: query.offset,
      limit: query.limit,
    }),
  }));

  registerRoute(app, getRoomReadiness, async ({ query, principal }) => ({
    data: await repository.roomReadiness(ctx.db, principal, query.room_list),
  }));

  registerRoute(app, updateRoomReadiness, async ({ body, principal }) => {
    const seen = new Set<string>();
    body.rooms.forEach((change, index) => {
      // Two values for one room would make the outcome depend on order; refuse instead of guessing.
      if (seen.has(change.room_id)) {
        throw badRequest(`Invalid body field "rooms.${index}.room_id": the room is listed twice.`, {
          issues: [{ field: `rooms.${index}.room_id`, message: 'The room is listed twice.' }],
        });
      }
      seen.add(change.room_id);
    });
    const { data, commanded } = await ctx.db.transaction(async (tx) => {
      const { readiness, changed } = await repository.setRoomReadiness(tx, principal, body.rooms);
      // A running job changes at once: the robot is told in this transaction (robot-link/readiness.ts).
      const commanded = await sendReadinessToRunningJobs(ctx, tx, {
        orgId: principal.orgId,
        actor: principal.username,
        at: new Date(),
        rooms: changed.map((room) => ({ roomId: room.room_id, ready: room.ready_for_disinfection })),
      });
      // Each job row shows its rooms' ready toggles (behaviour §2), so every open jobs list hears of the change.
      const affected = await repository.pendingJobsVisiting(tx, principal, readiness.map((room) => room.room_id));
      for (const job of await toJobs(tx, affected, { roomData: true })) {
        await ctx.bus.publish({ orgId: principal.orgId, stream: 'jobs', key: job.job_id, type: 'job_change', payload: job }, tx);
      }
      return { data: readiness, commanded };
    });
    if (commanded) ctx.commands.wake();
    return { data };
  });

  registerRoute(app, addRoomsToGroup, async ({ query, principal }) => {
    await ctx.db.transaction((tx) => repository.addRoomsToGroup(tx, principal, query.group, query.room_list));
    return { data: true };
  });

  registerRoute(app, removeRoomsFromGroup, async ({ query, principal }) => {
    await ctx.db.transaction((tx) => repository.removeRoomsFromGroup(tx, principal, query.group, query.room_list));
    return { data: true };
  });
};
