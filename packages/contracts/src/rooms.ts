// Contracts of the rooms backend (behaviour §3, §7): buildings, floors, floor maps, rooms, readiness, group rooms.
import { z } from 'zod';
import { DataFlag, Id, pagination } from './common.ts';
import { RESTRICTED_ROLES } from './roles.ts';
import { defineRoute } from './route.ts';

/**
 * An id list in a query string, repeated (`a=1&a=2`), comma-separated (`a=1,2`) or both; always an array of
 * ids after parsing. Behaviour §7 accepts both forms for `floor_id_list` and `room_list`.
 */
export const idCsvListQuery = (minItems = 0) =>
  z.preprocess((value: unknown): unknown[] => {
    const items: unknown[] = value === undefined ? [] : Array.isArray(value) ? (value as unknown[]) : [value];
    return items.flatMap((item) => (typeof item === 'string' ? item.split(',').filter((part) => part !== '') : [item]));
  }, z.array(Id).min(minItems));

/** Behaviour §9: buildings, floors and rooms are listed 50 at a time. */
const ROOMS_PAGE = 50;

/** A point in metres on a floor's map frame. */
export const MapPoint = z.object({ x: z.number(), y: z.number() });
export type MapPoint = z.infer<typeof MapPoint>;
/** A position in metres with a heading in radians on a floor's map frame. */
export const MapPose = z.object({ x: z.number(), y: z.number(), theta: z.number() });
export type MapPose = z.infer<typeof MapPose>;

export const Building = z.object({ building_id: Id, building_name: z.string() });
export type Building = z.infer<typeof Building>;

/** Behaviour §3 floor_id and floor_name, plus the building it belongs to and its level (for ordering). */
export const Floor = z.object({
  floor_id: Id,
  floor_name: z.string(),
  building_id: Id,
  level: z.number().int(),
});
export type Floor = z.infer<typeof Floor>;

/** Behaviour §3 room, plus where it is and its readiness (the job editor and the ready toggle need both). */
export const Room = z.object({
  room_id: Id,
  room_name: z.string(),
  order_no: z.number().int(),
  /** The room's default dose; null when none is set (the organization's default_dose applies). */
  dose: z.number().int().nullable(),
  floor_id: Id,
  building_id: Id,
  ready_for_disinfection: z.boolean(),
});
export type Room = z.infer<typeof Room>;

/**
 * Behaviour §7 "rooms and users lists in data": buildings, floors and rooms lists all reply `{ data: [...] }`,
 * paginated by `offset` and `limit`.
 */
const dataList = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

export const BuildingList = dataList(Building);
export type BuildingList = z.infer<typeof BuildingList>;
export const FloorList = dataList(Floor);
export type FloorList = z.infer<typeof FloorList>;
export const RoomList = dataList(Room);
export type RoomList = z.infer<typeof RoomList>;

/** A room as drawn on its floor's plan: outline and the point where a robot stands to disinfect it. */
export const MapRoom = z.object({
  room_id: Id,
  room_name: z.string(),
  polygon: z.array(MapPoint),
  entry_point: MapPose.nullable(),
});
export type MapRoom = z.infer<typeof MapRoom>;

/**
 * Where a floor's plan lies (behaviour §3, map metadata): the plan is `width`×`height` pixels of `resolution` metres;
 * `origin` is the metre position of the plan's bottom-left pixel. Kept with the floor as it is sent.
 */
export const MapFrame = z.object({
  resolution: z.number().positive(),
  origin: MapPoint,
  width: z.number().positive(),
  height: z.number().positive(),
});
export type MapFrame = z.infer<typeof MapFrame>;

/** Map metadata of a floor: its plan's frame and the rooms on it the caller may see. */
export const FloorMapMetadata = z.object({ floor_id: Id, ...MapFrame.shape, rooms: z.array(MapRoom) });
export type FloorMapMetadata = z.infer<typeof FloorMapMetadata>;

export const RoomReadiness = z.object({ room_id: Id, ready_for_disinfection: z.boolean() });
export type RoomReadiness = z.infer<typeof RoomReadiness>;
export const RoomReadinessList = dataList(RoomReadiness);
export type RoomReadinessList = z.infer<typeof RoomReadinessList>;

/**
 * The one shape of PATCH /rooms/room/ready: a list, so one toggle and a bulk change are the same call.
 * All-or-nothing: an unknown room or a repeated room changes nothing.
 */
export const RoomReadinessUpdate = z.object({ rooms: z.array(RoomReadiness).min(1) });
export type RoomReadinessUpdate = z.infer<typeof RoomReadinessUpdate>;

/** Behaviour §7 "group rooms read from the first element's rooms field": one element per requested group. */
export const GroupRooms = z.object({ groupId: Id, group: z.string(), rooms: z.array(Room) });
export type GroupRooms = z.infer<typeof GroupRooms>;
export const GroupRoomsList = dataList(GroupRooms);
export type GroupRoomsList = z.infer<typeof GroupRoomsList>;

// ---------------------------------------------------------------- routes

export const getBuildings = defineRoute({
  method: 'GET',
  path: '/buildings/building',
  summary: 'Buildings of the organization (a teleoperator sees those holding a room of their groups)',
  tags: ['rooms'],
  querystring: z.object(pagination(ROOMS_PAGE)),
  response: { 200: BuildingList },
});

export const getFloors = defineRoute({
  method: 'GET',
  path: '/floors/floor',
  summary: 'Floors, of one building when building_id is given, lowest level first',
  tags: ['rooms'],
  querystring: z.object({ building_id: Id.optional(), ...pagination(ROOMS_PAGE) }),
  response: { 200: FloorList },
});

export const getFloorMap = defineRoute({
  method: 'GET',
  path: '/floors/floor/map',
  summary: 'The floor plan as an SVG document (image/svg+xml); 404 when the floor has none',
  tags: ['rooms'],
  querystring: z.object({ floor_id: Id, image_format: z.enum(['svg']).default('svg') }),
  response: { 200: z.string().describe('SVG document') },
  produces: 'image/svg+xml',
});

export const getFloorMapMetadata = defineRoute({
  method: 'GET',
  path: '/floors/floor/map/metadata',
  summary: 'Scale and origin of the floor plan, with the outlines and entry points of its rooms',
  tags: ['rooms'],
  querystring: z.object({ floor_id: Id }),
  response: { 200: FloorMapMetadata },
});

export const getRoom = defineRoute({
  method: 'GET',
  path: '/rooms/room/id/:id',
  summary: 'One room',
  tags: ['rooms'],
  params: z.object({ id: Id }),
  response: { 200: Room },
});

export const getRooms = defineRoute({
  method: 'GET',
  path: '/rooms/room',
  summary: 'Rooms, of the listed floors when floor_id_list is given (repeated or comma-separated)',
  tags: ['rooms'],
  // The default marks the list optional in the OpenAPI document; the preprocess alone would leave it "required".
  querystring: z.object({ floor_id_list: idCsvListQuery().default([]), ...pagination(ROOMS_PAGE) }),
  response: { 200: RoomList },
});

export const getAdminRooms = defineRoute({
  method: 'GET',
  path: '/admin/rooms/room',
  summary: 'Every room of the organization (admin)',
  tags: ['rooms', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: z.object(pagination(ROOMS_PAGE)),
  response: { 200: RoomList },
});

export const getAdminGroupRooms = defineRoute({
  method: 'GET',
  path: '/admin/rooms/room/groups',
  summary: 'Rooms of the listed groups, one element per group (admin)',
  tags: ['rooms', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: z.object({ groups: idCsvListQuery(1), ...pagination(ROOMS_PAGE) }),
  response: { 200: GroupRoomsList },
});

export const getRoomReadiness = defineRoute({
  method: 'GET',
  path: '/rooms/room/ready',
  summary: 'Readiness for disinfection of the listed rooms',
  tags: ['rooms'],
  querystring: z.object({ room_list: idCsvListQuery(1) }),
  response: { 200: RoomReadinessList },
});

export const updateRoomReadiness = defineRoute({
  method: 'PATCH',
  path: '/rooms/room/ready',
  summary: 'Set the readiness of rooms, all or nothing; replies their new readiness',
  tags: ['rooms'],
  body: RoomReadinessUpdate,
  response: { 200: RoomReadinessList },
});

const groupRoomsQuery = z.object({ room_list: idCsvListQuery(1), group: Id });

export const addRoomsToGroup = defineRoute({
  method: 'PATCH',
  path: '/admin/rooms/room/add/group',
  summary: 'Add rooms to a group; rooms already in it stay (admin)',
  tags: ['rooms', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: groupRoomsQuery,
  response: { 200: DataFlag },
});

export const removeRoomsFromGroup = defineRoute({
  method: 'PATCH',
  path: '/admin/rooms/room/remove/group',
  summary: 'Remove rooms from a group; rooms not in it are ignored (admin)',
  tags: ['rooms', 'admin'],
  roles: RESTRICTED_ROLES,
  querystring: groupRoomsQuery,
  response: { 200: DataFlag },
});
