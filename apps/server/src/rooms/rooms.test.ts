import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  BuildingList,
  DataFlag,
  FloorList,
  FloorMapMetadata,
  GroupRoomsList,
  Job,
  Room,
  RoomList,
  RoomReadinessList,
} from '@uvd/contracts';
import { jobRooms, jobs, roomGroups, rooms } from '../db/schema.ts';
import { expectFieldError, expectStatus } from '../testing/assertions.ts';
import { startRouteTestServer, type TestServer } from '../testing/harness.ts';
import { addFloorMap, putRoomsInGroup, TEST_MAP_METADATA } from '../testing/rooms-fixtures.ts';
import { createSite } from '../testing/site-fixtures.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startRouteTestServer();
});
afterAll(async () => {
  await server.close();
});

/** An organization with two buildings, an admin, a teleoperator whose group holds only the first building's first floor. */
async function world() {
  const orgId = await server.createOrg();
  const db = server.context.db;
  const groupId = await server.createGroup(orgId);
  const main = await createSite(db, orgId, { floors: 2, roomsPerFloor: 3, robots: 0 });
  const annex = await createSite(db, orgId, { floors: 1, roomsPerFloor: 2, robots: 0 });
  const [mainGround, mainUpper] = main.floors;
  const [annexGround] = annex.floors;
  if (!mainGround || !mainUpper || !annexGround) throw new Error('site incomplete');
  await putRoomsInGroup(db, groupId, mainGround.roomIds);
  const admin = await server.createUser(orgId, ['done-admin']);
  const operator = await server.createUser(orgId, ['done-teleoperator'], { groupIds: [groupId] });
  // Another organization, whose ids must answer 404.
  const otherOrgId = await server.createOrg('other');
  const other = await createSite(db, otherOrgId, { floors: 1, roomsPerFloor: 2, robots: 0 });
  const otherGroupId = await server.createGroup(otherOrgId);
  const [otherFloor] = other.floors;
  if (!otherFloor) throw new Error('site incomplete');
  return { orgId, groupId, main, annex, mainGround, mainUpper, annexGround, admin, operator, other, otherFloor, otherGroupId };
}

describe('GET /buildings/building', () => {
  it('lists the organization’s buildings in data, by name, paginated', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/buildings/building', { token: w.admin.token });
    expectStatus(response, 200);
    const { data } = BuildingList.parse(response.body);
    expect(data.map((b) => b.building_id).sort()).toEqual([w.main.buildingId, w.annex.buildingId].sort());
    expect(data.map((b) => b.building_name)).toEqual([...data.map((b) => b.building_name)].sort());

    const second = await server.request('GET', '/api/buildings/building', {
      token: w.admin.token,
      query: { limit: 1, offset: 1 },
    });
    expect(BuildingList.parse(second.body).data).toEqual([data[1]]);
  });

  it('shows a teleoperator only buildings holding a room of their groups', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/buildings/building', { token: w.operator.token });
    expectStatus(response, 200);
    expect(BuildingList.parse(response.body).data.map((b) => b.building_id)).toEqual([w.main.buildingId]);
  });

  it('answers 400 naming the field, 401 without a token', async () => {
    const w = await world();
    expectFieldError(await server.request('GET', '/api/buildings/building', { token: w.admin.token, query: { limit: 0 } }), 'limit');
    expectFieldError(await server.request('GET', '/api/buildings/building', { token: w.admin.token, query: { offset: -1 } }), 'offset');
    expectStatus(await server.request('GET', '/api/buildings/building'), 401);
  });
});

describe('GET /floors/floor', () => {
  it('lists a building’s floors lowest level first', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/floors/floor', {
      token: w.admin.token,
      query: { building_id: w.main.buildingId, limit: 50, offset: 0 },
    });
    expectStatus(response, 200);
    const { data } = FloorList.parse(response.body);
    expect(data.map((f) => f.floor_id)).toEqual([w.mainGround.id, w.mainUpper.id]);
    expect(data.map((f) => f.level)).toEqual([0, 1]);
    expect(data.every((f) => f.building_id === w.main.buildingId)).toBe(true);
  });

  it('lists every floor of the organization without building_id', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/floors/floor', { token: w.admin.token });
    expect(FloorList.parse(response.body).data.map((f) => f.floor_id).sort()).toEqual(
      [w.mainGround.id, w.mainUpper.id, w.annexGround.id].sort(),
    );
  });

  it('shows a teleoperator only floors holding a room of their groups', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/floors/floor', {
      token: w.operator.token,
      query: { building_id: w.main.buildingId },
    });
    expect(FloorList.parse(response.body).data.map((f) => f.floor_id)).toEqual([w.mainGround.id]);
  });

  it('answers 400 naming the field, 401 without a token, 404 for another organization’s building', async () => {
    const w = await world();
    expectFieldError(
      await server.request('GET', '/api/floors/floor', { token: w.admin.token, query: { building_id: 'nope' } }),
      'building_id',
    );
    expectStatus(await server.request('GET', '/api/floors/floor', { query: { building_id: w.main.buildingId } }), 401);
    expectStatus(
      await server.request('GET', '/api/floors/floor', { token: w.admin.token, query: { building_id: w.other.buildingId } }),
      404,
    );
  });
});

describe('GET /floors/floor/map', () => {
  it('serves the floor plan as image/svg+xml', async () => {
    const w = await world();
    const svg = await addFloorMap(server.context.db, w.mainGround.id);
    const response = await server.request<string>('GET', '/api/floors/floor/map', {
      token: w.operator.token,
      query: { floor_id: w.mainGround.id, image_format: 'svg' },
    });
    expectStatus(response, 200);
    expect(response.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(response.body).toBe(svg);
  });

  it('answers 404 when the floor has no plan', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/floors/floor/map', {
      token: w.admin.token,
      query: { floor_id: w.mainUpper.id },
    });
    expectStatus(response, 404);
    expect(ApiError.parse(response.body).message).toBe('Floor map was not found.');
  });

  it('answers 400 naming the field, 401, and 404 for another organization’s or an invisible floor', async () => {
    const w = await world();
    await addFloorMap(server.context.db, w.otherFloor.id);
    await addFloorMap(server.context.db, w.annexGround.id);
    const get = (token: string | undefined, query: Record<string, string>) =>
      server.request('GET', '/api/floors/floor/map', { token, query });
    expectFieldError(await get(w.admin.token, { floor_id: '12' }), 'floor_id');
    expectFieldError(await get(w.admin.token, {}), 'floor_id');
    expectFieldError(await get(w.admin.token, { floor_id: w.annexGround.id, image_format: 'png' }), 'image_format');
    expectStatus(await get(undefined, { floor_id: w.annexGround.id }), 401);
    expectStatus(await get(w.admin.token, { floor_id: w.otherFloor.id }), 404);
    expectStatus(await get(w.operator.token, { floor_id: w.annexGround.id }), 404);
    expectStatus(await get(w.admin.token, { floor_id: w.annexGround.id }), 200);
  });
});

describe('GET /floors/floor/map/metadata', () => {
  it('replies scale, origin, size and the rooms drawn on the plan', async () => {
    const w = await world();
    await addFloorMap(server.context.db, w.mainGround.id);
    const response = await server.request('GET', '/api/floors/floor/map/metadata', {
      token: w.admin.token,
      query: { floor_id: w.mainGround.id },
    });
    expectStatus(response, 200);
    const metadata = FloorMapMetadata.parse(response.body);
    expect(metadata).toMatchObject({ floor_id: w.mainGround.id, ...TEST_MAP_METADATA });
    expect(metadata.rooms.map((r) => r.room_id)).toEqual(w.mainGround.roomIds);
    expect(metadata.rooms[0]?.polygon).toHaveLength(4);
    expect(metadata.rooms[0]?.entry_point).toEqual({ x: 2, y: 2, theta: 0 });
  });

  it('lists to a teleoperator only the rooms of their groups', async () => {
    const w = await world();
    await addFloorMap(server.context.db, w.mainGround.id);
    const [first, ...rest] = w.mainGround.roomIds;
    await server.context.db.delete(roomGroups).where(inArray(roomGroups.roomId, rest));
    const response = await server.request('GET', '/api/floors/floor/map/metadata', {
      token: w.operator.token,
      query: { floor_id: w.mainGround.id },
    });
    expect(FloorMapMetadata.parse(response.body).rooms.map((r) => r.room_id)).toEqual([first]);
  });

  it('answers 400 naming the field, 401, 404 without metadata and for another organization’s floor', async () => {
    const w = await world();
    await addFloorMap(server.context.db, w.otherFloor.id);
    const get = (token: string | undefined, floorId: string) =>
      server.request('GET', '/api/floors/floor/map/metadata', { token, query: { floor_id: floorId } });
    expectFieldError(await get(w.admin.token, 'x'), 'floor_id');
    expectStatus(await get(undefined, w.mainGround.id), 401);
    expectStatus(await get(w.admin.token, w.mainUpper.id), 404);
    expectStatus(await get(w.admin.token, w.otherFloor.id), 404);
  });
});

describe('GET /rooms/room/id/:id', () => {
  it('replies the room with its place and readiness', async () => {
    const w = await world();
    const roomId = w.mainGround.roomIds[1] ?? '';
    const response = await server.request('GET', `/api/rooms/room/id/${roomId}`, { token: w.operator.token });
    expectStatus(response, 200);
    expect(Room.parse(response.body)).toEqual({
      room_id: roomId,
      room_name: 'Room 1.2',
      order_no: 1,
      dose: null,
      floor_id: w.mainGround.id,
      building_id: w.main.buildingId,
      ready_for_disinfection: true,
    });
  });

  it('answers 400 naming the field, 401, 404 for another organization’s room and for a teleoperator outside its groups', async () => {
    const w = await world();
    expectFieldError(await server.request('GET', '/api/rooms/room/id/abc', { token: w.admin.token }), 'id');
    expectStatus(await server.request('GET', `/api/rooms/room/id/${w.mainGround.roomIds[0] ?? ''}`), 401);
    expectStatus(await server.request('GET', `/api/rooms/room/id/${w.otherFloor.roomIds[0] ?? ''}`, { token: w.admin.token }), 404);
    const upperRoom = `/api/rooms/room/id/${w.mainUpper.roomIds[0] ?? ''}`;
    expectStatus(await server.request('GET', upperRoom, { token: w.operator.token }), 404);
    expectStatus(await server.request('GET', upperRoom, { token: w.admin.token }), 200);
  });
});

describe('GET /rooms/room', () => {
  it('lists the rooms of floors given repeated or comma-separated, in floor order', async () => {
    const w = await world();
    const repeated = await server.request('GET', '/api/rooms/room', {
      token: w.admin.token,
      query: { floor_id_list: [w.mainGround.id, w.annexGround.id], limit: 50, offset: 0 },
    });
    expectStatus(repeated, 200);
    const { data } = RoomList.parse(repeated.body);
    expect(data.map((r) => r.room_id).sort()).toEqual([...w.mainGround.roomIds, ...w.annexGround.roomIds].sort());
    const ground = data.filter((r) => r.floor_id === w.mainGround.id).map((r) => r.order_no);
    expect(ground).toEqual([0, 1, 2]);

    const comma = await server.request('GET', '/api/rooms/room', {
      token: w.admin.token,
      query: { floor_id_list: `${w.mainGround.id},${w.annexGround.id}` },
    });
    expect(RoomList.parse(comma.body).data).toEqual(data);

    const page = await server.request('GET', '/api/rooms/room', {
      token: w.admin.token,
      query: { floor_id_list: [w.mainGround.id, w.annexGround.id], limit: 2, offset: 2 },
    });
    expect(RoomList.parse(page.body).data).toEqual(data.slice(2, 4));
  });

  it('shows a teleoperator only the rooms of their groups', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/rooms/room', { token: w.operator.token });
    expect(RoomList.parse(response.body).data.map((r) => r.room_id)).toEqual(w.mainGround.roomIds);
    const upper = await server.request('GET', '/api/rooms/room', {
      token: w.operator.token,
      query: { floor_id_list: w.mainUpper.id },
    });
    expect(RoomList.parse(upper.body).data).toEqual([]);
  });

  it('answers 400 naming the field, 401, 404 for another organization’s floor', async () => {
    const w = await world();
    expectFieldError(
      await server.request('GET', '/api/rooms/room', { token: w.admin.token, query: { floor_id_list: `${w.mainGround.id},bad` } }),
      'floor_id_list',
    );
    expectFieldError(await server.request('GET', '/api/rooms/room', { token: w.admin.token, query: { limit: 'many' } }), 'limit');
    expectStatus(await server.request('GET', '/api/rooms/room'), 401);
    expectStatus(
      await server.request('GET', '/api/rooms/room', {
        token: w.admin.token,
        query: { floor_id_list: [w.mainGround.id, w.otherFloor.id] },
      }),
      404,
    );
  });
});

describe('GET /admin/rooms/room', () => {
  it('lists every room of the organization to an admin', async () => {
    const w = await world();
    const superadmin = await server.createUser(w.orgId, ['done-superadmin']);
    const response = await server.request('GET', '/api/admin/rooms/room', { token: superadmin.token, query: { limit: 50, offset: 0 } });
    expectStatus(response, 200);
    const ids = RoomList.parse(response.body).data.map((r) => r.room_id);
    expect(ids.sort()).toEqual([...w.mainGround.roomIds, ...w.mainUpper.roomIds, ...w.annexGround.roomIds].sort());
  });

  it('answers 400 naming the field, 401, 403 to a teleoperator', async () => {
    const w = await world();
    expectFieldError(await server.request('GET', '/api/admin/rooms/room', { token: w.admin.token, query: { limit: 1000 } }), 'limit');
    expectStatus(await server.request('GET', '/api/admin/rooms/room'), 401);
    expectStatus(await server.request('GET', '/api/admin/rooms/room', { token: w.operator.token }), 403);
  });
});

describe('GET /admin/rooms/room/groups', () => {
  it('replies one element per group, holding its name and rooms', async () => {
    const w = await world();
    const response = await server.request('GET', '/api/admin/rooms/room/groups', {
      token: w.admin.token,
      query: { groups: w.groupId, limit: 50, offset: 0 },
    });
    expectStatus(response, 200);
    const { data } = GroupRoomsList.parse(response.body);
    expect(data).toHaveLength(1);
    expect(data[0]?.groupId).toBe(w.groupId);
    expect(data[0]?.group).toMatch(/^group-/);
    expect(data[0]?.rooms.map((r) => r.room_id)).toEqual(w.mainGround.roomIds);

    const empty = await server.createGroup(w.orgId);
    const both = await server.request('GET', '/api/admin/rooms/room/groups', {
      token: w.admin.token,
      query: { groups: [empty, w.groupId] },
    });
    const list = GroupRoomsList.parse(both.body).data;
    expect(list.map((g) => [g.groupId, g.rooms.length])).toEqual([
      [empty, 0],
      [w.groupId, 3],
    ]);
  });

  it('answers 400 naming the field, 401, 403, 404 for another organization’s group', async () => {
    const w = await world();
    const get = (token: string | undefined, query: Record<string, string>) =>
      server.request('GET', '/api/admin/rooms/room/groups', { token, query });
    expectFieldError(await get(w.admin.token, {}), 'groups');
    expectFieldError(await get(w.admin.token, { groups: 'g1' }), 'groups');
    expectStatus(await get(undefined, { groups: w.groupId }), 401);
    expectStatus(await get(w.operator.token, { groups: w.groupId }), 403);
    expectStatus(await get(w.admin.token, { groups: w.otherGroupId }), 404);
  });
});

describe('GET /rooms/room/ready', () => {
  it('replies the readiness of the listed rooms, in the order asked', async () => {
    const w = await world();
    const [a, b] = w.mainGround.roomIds;
    if (!a || !b) throw new Error('rooms missing');
    await server.context.db.update(rooms).set({ readyForDisinfection: false }).where(eq(rooms.id, b));
    const response = await server.request('GET', '/api/rooms/room/ready', { token: w.operator.token, query: { room_list: [b, a] } });
    expectStatus(response, 200);
    expect(RoomReadinessList.parse(response.body).data).toEqual([
      { room_id: b, ready_for_disinfection: false },
      { room_id: a, ready_for_disinfection: true },
    ]);
  });

  it('answers 400 naming the field, 401, 404 for another organization’s room and a room outside the teleoperator’s groups', async () => {
    const w = await world();
    const get = (token: string | undefined, roomList: string[]) =>
      server.request('GET', '/api/rooms/room/ready', { token, query: { room_list: roomList } });
    expectFieldError(await get(w.admin.token, []), 'room_list');
    expectFieldError(await get(w.admin.token, ['r1']), 'room_list');
    expectStatus(await get(undefined, w.mainGround.roomIds), 401);
    expectStatus(await get(w.admin.token, [...w.mainGround.roomIds, ...w.otherFloor.roomIds]), 404);
    expectStatus(await get(w.operator.token, w.mainUpper.roomIds), 404);
  });
});

describe('PATCH /rooms/room/ready', () => {
  const readiness = async (roomIds: string[]) =>
    (await server.context.db.select({ id: rooms.id, ready: rooms.readyForDisinfection }).from(rooms).where(inArray(rooms.id, roomIds)))
      .sort((x, y) => roomIds.indexOf(x.id) - roomIds.indexOf(y.id))
      .map((row) => row.ready);

  it('sets readiness of the listed rooms and replies it', async () => {
    const w = await world();
    const [a, b, c] = w.mainGround.roomIds;
    if (!a || !b || !c) throw new Error('rooms missing');
    const response = await server.request('PATCH', '/api/rooms/room/ready', {
      token: w.operator.token,
      body: { rooms: [{ room_id: a, ready_for_disinfection: false }, { room_id: c, ready_for_disinfection: false }] },
    });
    expectStatus(response, 200);
    expect(RoomReadinessList.parse(response.body).data).toEqual([
      { room_id: a, ready_for_disinfection: false },
      { room_id: c, ready_for_disinfection: false },
    ]);
    expect(await readiness([a, b, c])).toEqual([false, true, false]);

    const back = await server.request('PATCH', '/api/rooms/room/ready', {
      token: w.operator.token,
      body: { rooms: [{ room_id: a, ready_for_disinfection: true }] },
    });
    expectStatus(back, 200);
    expect(await readiness([a, b, c])).toEqual([true, true, false]);
  });

  it('publishes job_change for pending jobs visiting a changed room, with the new readiness', async () => {
    const w = await world();
    const [a, b] = w.mainGround.roomIds;
    const [robotId] = (await createSite(server.context.db, w.orgId, { floors: 1, roomsPerFloor: 0, robots: 1 })).robotIds;
    if (!a || !b || !robotId) throw new Error('site incomplete');
    const insertJob = async (performed: boolean) => {
      const [job] = await server.context.db
        .insert(jobs)
        // Not due yet: the scheduler leaves it alone (a due job of an offline robot is held, with events of its own).
        .values({ orgId: w.orgId, robotId, name: `job ${String(performed)}`, startTime: new Date(Date.now() + 3600_000), createdBy: 'admin', performed })
        .returning({ id: jobs.id });
      if (!job) throw new Error('job not created');
      await server.context.db.insert(jobRooms).values([
        { jobId: job.id, orderNo: 0, roomId: b, dose: 20 },
        { jobId: job.id, orderNo: 1, roomId: a, dose: 20 },
      ]);
      return job.id;
    };
    const pending = await insertJob(false);
    await insertJob(true);
    const response = await server.request('PATCH', '/api/rooms/room/ready', {
      token: w.operator.token,
      body: { rooms: [{ room_id: a, ready_for_disinfection: false }] },
    });
    expectStatus(response, 200);
    const events = await server.context.bus.replay(w.orgId, 'jobs', 0);
    expect(events.map((event) => [event.type, event.key])).toEqual([['job_change', pending]]);
    const job = Job.parse(events[0]?.payload);
    expect(job.rooms.map((room) => [room.room_id, room.ready_for_disinfection])).toEqual([
      [b, true],
      [a, false],
    ]);
  });

  it('answers 400 naming the field and changes nothing', async () => {
    const w = await world();
    const [a] = w.mainGround.roomIds;
    if (!a) throw new Error('rooms missing');
    const patch = (body: unknown) => server.request('PATCH', '/api/rooms/room/ready', { token: w.admin.token, body });
    expectFieldError(await patch({}), 'rooms');
    expectFieldError(await patch({ rooms: [] }), 'rooms');
    expectFieldError(await patch({ rooms: [{ room_id: a, ready_for_disinfection: 'no' }] }), 'rooms.0.ready_for_disinfection');
    expectFieldError(
      await patch({ rooms: [{ room_id: a, ready_for_disinfection: false }, { room_id: a, ready_for_disinfection: true }] }),
      'rooms.1.room_id',
    );
    expect(await readiness([a])).toEqual([true]);
  });

  it('answers 401 without a token, and 404 for another organization’s room writing nothing', async () => {
    const w = await world();
    const [a] = w.mainGround.roomIds;
    const [foreign] = w.otherFloor.roomIds;
    if (!a || !foreign) throw new Error('rooms missing');
    const body = { rooms: [{ room_id: a, ready_for_disinfection: false }, { room_id: foreign, ready_for_disinfection: false }] };
    expectStatus(await server.request('PATCH', '/api/rooms/room/ready', { body }), 401);
    expectStatus(await server.request('PATCH', '/api/rooms/room/ready', { token: w.admin.token, body }), 404);
    expect(await readiness([a, foreign])).toEqual([true, true]);
  });

  it('answers 404 to a teleoperator for a room outside their groups', async () => {
    const w = await world();
    const [upper] = w.mainUpper.roomIds;
    if (!upper) throw new Error('rooms missing');
    const response = await server.request('PATCH', '/api/rooms/room/ready', {
      token: w.operator.token,
      body: { rooms: [{ room_id: upper, ready_for_disinfection: false }] },
    });
    expectStatus(response, 404);
    expect(await readiness([upper])).toEqual([true]);
  });
});

describe('PATCH /admin/rooms/room/{add,remove}/group', () => {
  const groupRoomIds = async (groupId: string) =>
    (await server.context.db.select({ id: roomGroups.roomId }).from(roomGroups).where(eq(roomGroups.groupId, groupId)))
      .map((row) => row.id)
      .sort();

  it('adds rooms to a group idempotently, which the group’s teleoperator then sees', async () => {
    const w = await world();
    const add = () =>
      server.request('PATCH', '/api/admin/rooms/room/add/group', {
        token: w.admin.token,
        query: { room_list: [w.mainUpper.roomIds[0] ?? '', w.mainGround.roomIds[0] ?? ''], group: w.groupId },
      });
    const first = await add();
    expectStatus(first, 200);
    expect(DataFlag.parse(first.body)).toEqual({ data: true });
    expectStatus(await add(), 200);
    expect(await groupRoomIds(w.groupId)).toEqual([...w.mainGround.roomIds, w.mainUpper.roomIds[0] ?? ''].sort());
    const seen = await server.request('GET', '/api/rooms/room', { token: w.operator.token });
    expect(RoomList.parse(seen.body).data.map((r) => r.room_id)).toContain(w.mainUpper.roomIds[0]);
  });

  it('removes rooms from a group, ignoring rooms not in it', async () => {
    const w = await world();
    const [a, b, c] = w.mainGround.roomIds;
    if (!a || !b || !c) throw new Error('rooms missing');
    const response = await server.request('PATCH', '/api/admin/rooms/room/remove/group', {
      token: w.admin.token,
      query: { room_list: `${a},${b},${w.annexGround.roomIds[0] ?? ''}`, group: w.groupId },
    });
    expectStatus(response, 200);
    expect(DataFlag.parse(response.body)).toEqual({ data: true });
    expect(await groupRoomIds(w.groupId)).toEqual([c]);
    const seen = await server.request('GET', '/api/rooms/room', { token: w.operator.token });
    expect(RoomList.parse(seen.body).data.map((r) => r.room_id)).toEqual([c]);
  });

  it.each(['add', 'remove'])('%s: answers 400 naming the field, 401, 403, 404 for another organization’s group or room', async (verb) => {
    const w = await world();
    const path = `/api/admin/rooms/room/${verb}/group`;
    const [a] = w.annexGround.roomIds;
    const [foreign] = w.otherFloor.roomIds;
    if (!a || !foreign) throw new Error('rooms missing');
    const patch = (token: string | undefined, query: Record<string, string | string[]>) => server.request('PATCH', path, { token, query });
    const before = await groupRoomIds(w.groupId);
    expectFieldError(await patch(w.admin.token, { room_list: a }), 'group');
    expectFieldError(await patch(w.admin.token, { group: w.groupId }), 'room_list');
    expectFieldError(await patch(w.admin.token, { room_list: 'x', group: w.groupId }), 'room_list');
    expectStatus(await patch(undefined, { room_list: a, group: w.groupId }), 401);
    expectStatus(await patch(w.operator.token, { room_list: a, group: w.groupId }), 403);
    expectStatus(await patch(w.admin.token, { room_list: a, group: w.otherGroupId }), 404);
    expectStatus(await patch(w.admin.token, { room_list: [a, foreign], group: w.groupId }), 404);
    expect(await groupRoomIds(w.groupId)).toEqual(before);
  });
});

describe('OpenAPI document', () => {
  it('describes every rooms route', async () => {
    const response = await server.request<{ paths: Record<string, Record<string, unknown>> }>('GET', '/api/docs/json');
    expectStatus(response, 200);
    const paths = Object.keys(response.body.paths);
    for (const path of [
      '/buildings/building',
      '/floors/floor',
      '/floors/floor/map',
      '/floors/floor/map/metadata',
      '/rooms/room/id/{id}',
      '/rooms/room',
      '/admin/rooms/room',
      '/admin/rooms/room/groups',
      '/rooms/room/ready',
      '/admin/rooms/room/add/group',
      '/admin/rooms/room/remove/group',
    ]) {
      expect(paths.includes(path) || paths.includes(`/api${path}`), path).toBe(true);
    }
  });
});
