import { getBuildings, getFloorMap, getFloorMapMetadata, getFloors, getJob, getRobots, Job } from '@uvd/contracts';
import type { Building, Floor, FloorMapMetadata, Robot } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_KEYS } from '../../lib/storage.ts';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, sessionUser, storeSession } from '../../testing/fixtures.ts';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { robotFixture } from '../../testing/robot-fixtures.ts';

const USER = sessionUser().sub;
const OTHER_USER = '7a1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';
const B1 = 'a0000000-0000-4000-8000-000000000001';
const B2 = 'a0000000-0000-4000-8000-000000000002';
const F1 = 'b0000000-0000-4000-8000-000000000001';
const F2 = 'b0000000-0000-4000-8000-000000000002';
const F3 = 'b0000000-0000-4000-8000-000000000003';
const ROOM = 'c0000000-0000-4000-8000-000000000001';
const ALPHA = 'd0000000-0000-4000-8000-000000000001';
const BRAVO = 'd0000000-0000-4000-8000-000000000002';
const JOB = 'e0000000-0000-4000-8000-000000000001';

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300"/></svg>';

const building = (building_id: string, building_name: string): Building => ({ building_id, building_name });
const floor = (floor_id: string, floor_name: string, building_id: string, level = 0): Floor => ({ floor_id, floor_name, building_id, level });

/** 5 cm pixels, the plan's bottom-left pixel at (-1 m, -2 m), 400×300 pixels. */
const metadata = (floor_id: string): FloorMapMetadata => ({
  floor_id,
  resolution: 0.05,
  origin: { x: -1, y: -2 },
  width: 400,
  height: 300,
  rooms: [
    {
      room_id: ROOM,
      room_name: 'Ward 1',
      polygon: [
        { x: -1, y: -2 },
        { x: 1, y: -2 },
        { x: 1, y: 0 },
      ],
      entry_point: null,
    },
  ],
});


const objectUrls: string[] = [];
/** The robot stream, opened with the page's fetch (the fake network serves the API client's calls only). */
let streams: { url: URL; stream: FakeEventStream }[] = [];
beforeEach(() => {
  objectUrls.length = 0;
  streams = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL) => {
    const stream = new FakeEventStream();
    streams.push({ url: new URL(input instanceof Request ? input.url : String(input)), stream });
    return Promise.resolve(stream.response);
  });
  vi.stubGlobal('URL', Object.assign(class extends URL {}, {
    createObjectURL: (blob: Blob) => {
      const url = `blob:map-${objectUrls.length}-${blob.type}`;
      objectUrls.push(url);
      return url;
    },
    revokeObjectURL: () => undefined,
  }));
});
afterEach(() => {
  vi.unstubAllGlobals();
});

interface Site {
  buildings: Building[];
  floors: Floor[];
  robots?: Robot[];
}

const signedIn = ({ buildings, floors, robots = [] }: Site) => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(getBuildings, { status: 200, body: { data: buildings } })
    .on(getFloors, (request) => {
      const id = request.url.searchParams.get('building_id');
      return { status: 200, body: { data: floors.filter((candidate) => id === null || candidate.building_id === id) } };
    })
    .on(getRobots, { status: 200, body: { count: robots.length, payload: robots } })
    .on(getFloorMap, { status: 200, body: SVG })
    .on(getFloorMapMetadata, (request) => ({ status: 200, body: metadata(request.url.searchParams.get('floor_id') ?? F1) }));
};

const buildingSelect = () => screen.getByLabelText('Building');
const floorSelect = () => screen.getByLabelText('Floor');

describe('map screen (behaviour §2)', () => {
  it('auto-selects the only building and floor and draws the plan, rooms and robots at their pixel positions', async () => {
    const network = signedIn({
      buildings: [building(B1, 'Main')],
      floors: [floor(F1, 'Ground', B1)],
      robots: [
        robotFixture({ robot_id: ALPHA, name: 'Alpha', floor_id: F1, building_id: B1, pose: { x: 4, y: 3, theta: 0 } }),
        robotFixture({ robot_id: BRAVO, name: 'Bravo', floor_id: F2, building_id: B1, pose: { x: 1, y: 1, theta: 0 } }),
      ],
    });
    await renderApp({ path: '/map', network });

    const image = await screen.findByRole('img', { name: 'Floor plan of Ground' });
    expect(image).toHaveAttribute('src', 'blob:map-0-image/svg+xml');
    expect(buildingSelect()).toHaveValue(B1);
    expect(floorSelect()).toHaveValue(F1);
    expect(network.callsTo(getFloors)[0]?.url.searchParams.get('building_id')).toBe(B1);
    expect(network.callsTo(getFloorMap)[0]?.url.searchParams.get('image_format')).toBe('svg');
    expect(network.callsTo(getFloorMap)[0]?.headers.get('Authorization')).toMatch(/^Bearer /);

    const overlay = screen.getByTestId('map-overlay');
    expect(overlay).toHaveAttribute('viewBox', '0 0 400 300');
    // Shaped as the plan (400×300) on a phone, 600 px high on a desktop (styles/theme.css; e2e measures both).
    expect(screen.getByTestId('floor-map')).toHaveClass('floor-plan');
    expect(screen.getByTestId('floor-map').style.getPropertyValue('--plan-ratio')).toBe('0.75');
    // (4 - -1) / 0.05 = 100; 300 - (3 - -2) / 0.05 = 200
    const markers = screen.getAllByTestId('robot-marker');
    expect(markers).toHaveLength(1);
    expect(markers[0]).toHaveAttribute('data-x', '100');
    expect(markers[0]).toHaveAttribute('data-y', '200');
    expect(markers[0]).toHaveTextContent('Alpha');
    expect(within(overlay).getByTestId('map-room').querySelector('polygon')).toHaveAttribute('points', '0,300 40,300 40,260');

    // Hover or keyboard focus shows the room's name.
    expect(screen.queryByTestId('room-name')).toBeNull();
    const room = screen.getByRole('img', { name: 'Ward 1' });
    room.focus();
    expect(await screen.findByTestId('room-name')).toHaveTextContent('Ward 1');

    // The text alternative lists the robots of this floor by the room they are in, or the corridor outside them.
    expect(screen.getByTestId('map-robot-list')).toHaveTextContent('Alpha: in the corridor');
    expect(screen.getByTestId('map-robot-list')).not.toHaveTextContent('Bravo');
  });

  it('draws a robot that is offline or has not reported since a restart grey where it last was, and says so in the list', async () => {
    const network = signedIn({
      buildings: [building(B1, 'Main')],
      floors: [floor(F1, 'Ground', B1)],
      robots: [
        robotFixture({ robot_id: ALPHA, name: 'Alpha', floor_id: F1, building_id: B1, pose: { x: 4, y: 3, theta: 0 } }),
        robotFixture({ robot_id: BRAVO, name: 'Bravo', mode: 0, battery: 70, signal: null, floor_id: F1, building_id: B1, pose: { x: 0.5, y: -1.5, theta: 0 } }),
      ],
    });
    await renderApp({ path: '/map', network });
    await screen.findByRole('img', { name: 'Floor plan of Ground' });
    const marker = (id: string) => screen.getAllByTestId('robot-marker').find((candidate) => candidate.getAttribute('data-robot-id') === id);
    expect(marker(BRAVO)).toHaveAttribute('data-offline', 'true');
    expect(marker(BRAVO)?.querySelector('circle')).toHaveAttribute('fill', '#6c757d');
    expect(marker(ALPHA)).toHaveAttribute('data-offline', 'false');
    expect(marker(ALPHA)?.querySelector('circle')).toHaveAttribute('fill', '#198754');
    const items = within(screen.getByTestId('map-robot-list')).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual(['Alpha: in the corridor · Idle', 'Bravo: in Ward 1 (Offline)']);
  });

  it('moves the robot markers live with the robot stream: a new pose, then another floor', async () => {
    const network = signedIn({
      buildings: [building(B1, 'Main')],
      floors: [floor(F1, 'Ground', B1), floor(F2, 'First', B1)],
      robots: [
        robotFixture({ robot_id: ALPHA, name: 'Alpha', floor_id: F1, building_id: B1, pose: { x: 4, y: 3, theta: 0 } }),
        robotFixture({ robot_id: BRAVO, name: 'Bravo', floor_id: F2, building_id: B1, pose: { x: 1, y: 1, theta: 0 } }),
      ],
    });
    window.localStorage.setItem(LOCAL_KEYS.selectedMap, JSON.stringify({ [USER]: F1 }));
    const { router } = await renderApp({ path: '/map', network });
    expect(await screen.findByTestId('robot-marker')).toHaveAttribute('data-x', '100');
    // One robot stream (beside the console's actions stream of the prompts banner, on every screen).
    const robotStreams = () => streams.filter((entry) => entry.url.pathname === '/api/robot/stream');
    await waitFor(() => {
      expect(robotStreams()).toHaveLength(1);
    });
    const [live] = robotStreams();
    if (!live) throw new Error('no stream');
    expect(live.url.pathname).toBe('/api/robot/stream');
    expect(live.url.searchParams.get('robot_list')?.split(',').sort()).toEqual([ALPHA, BRAVO]);
    const robotCalls = network.callsTo(getRobots).length;

    // Alpha drives into Ward 1: the list names the room.
    expect(screen.getByTestId('map-robot-list')).toHaveTextContent('Alpha: in the corridor');
    live.stream.event('robot_update', { robot_id: ALPHA, field: 'pose', value: { x: 0.5, y: -1.5, theta: 0, floor_id: F1 } });
    await waitFor(() => {
      expect(screen.getByTestId('robot-marker')).toHaveAttribute('data-x', '30');
    });
    expect(screen.getByTestId('map-robot-list')).toHaveTextContent('Alpha: in Ward 1');

    // Bravo drives onto this floor and Alpha leaves it.
    live.stream.event('robot_update', { robot_id: BRAVO, field: 'pose', value: { x: 2, y: 1, theta: 0, floor_id: F1 } });
    live.stream.event('robot_update', { robot_id: ALPHA, field: 'pose', value: { x: 0, y: 3, theta: 0, floor_id: F2 } });
    await waitFor(() => {
      expect(screen.getByTestId('map-robot-list')).toHaveTextContent('Bravo: in the corridor');
    });
    expect(screen.getByTestId('map-robot-list')).not.toHaveTextContent('Alpha');
    expect(screen.getAllByTestId('robot-marker')).toHaveLength(1);
    // The stream moved them: the list was not fetched again.
    expect(network.callsTo(getRobots)).toHaveLength(robotCalls);

    await router.navigate('/settings');
    await waitFor(() => {
      expect(live.stream.cancelled).toBe(true);
    });
  });

  it('remembers the building and floor per user in local storage', async () => {
    window.localStorage.setItem(LOCAL_KEYS.selectedBuilding, JSON.stringify({ [USER]: B2, [OTHER_USER]: B1 }));
    window.localStorage.setItem(LOCAL_KEYS.selectedMap, JSON.stringify({ [USER]: F3, [OTHER_USER]: F1 }));
    const network = signedIn({
      buildings: [building(B1, 'Main'), building(B2, 'Annex')],
      floors: [floor(F1, 'Ground', B1), floor(F2, 'First', B2), floor(F3, 'Second', B2, 1)],
    });
    await renderApp({ path: '/map', network });
    expect(await screen.findByRole('img', { name: 'Floor plan of Second' })).toBeInTheDocument();
    expect(buildingSelect()).toHaveValue(B2);
    expect(floorSelect()).toHaveValue(F3);

    await userEvent.selectOptions(buildingSelect(), B1);
    await waitFor(() => {
      expect(floorSelect()).toHaveValue(F1);
    });
    await userEvent.selectOptions(floorSelect(), F1);
    expect(JSON.parse(window.localStorage.getItem(LOCAL_KEYS.selectedBuilding) ?? '{}')).toEqual({ [USER]: B1, [OTHER_USER]: B1 });
    expect(JSON.parse(window.localStorage.getItem(LOCAL_KEYS.selectedMap) ?? '{}')).toEqual({ [USER]: F1, [OTHER_USER]: F1 });
  });

  it('asks for a choice when there are several buildings and nothing is remembered', async () => {
    const network = signedIn({ buildings: [building(B1, 'Main'), building(B2, 'Annex')], floors: [floor(F1, 'Ground', B1)] });
    await renderApp({ path: '/map', network });
    expect(await screen.findByText('Choose a building and a floor')).toBeInTheDocument();
    expect(buildingSelect()).toHaveValue('');
    expect(network.callsTo(getFloorMap)).toHaveLength(0);
  });

  it('draws the job trajectory of the shown floor and selects the job floor for job and show_trajectory=true', async () => {
    const job = Job.parse({
      job_id: JOB,
      name: 'Night round',
      status: 'Completed',
      robot_id: ALPHA,
      robot_name: 'Alpha',
      active_state: null,
      start_time: '2026-11-20T10:00:00.000Z',
      created_at: '2026-11-19T10:00:00.000Z',
      created_by: 'olivia',
      notes: '',
      rooms: [],
      start_now: false,
      performed: true,
      trajectory: [
        { t: 0, x: -1, y: -2, floor_id: F3 },
        { t: 1, x: 1, y: 0.5, floor_id: F3 },
        { t: 2, x: 9, y: 9, floor_id: F1 },
      ],
    });
    const network = signedIn({
      buildings: [building(B1, 'Main'), building(B2, 'Annex')],
      floors: [floor(F1, 'Ground', B1), floor(F2, 'First', B2), floor(F3, 'Second', B2, 1)],
    }).on(getJob, { status: 200, body: job });
    await renderApp({ path: `/map?job=${JOB}&show_trajectory=true`, network });

    const trajectory = await screen.findByTestId('trajectory');
    expect(trajectory).toHaveAttribute('points', '0,300 40,250');
    expect(buildingSelect()).toHaveValue(B2);
    expect(floorSelect()).toHaveValue(F3);
    // The trajectory is read with the navigation data (the job's progress panel reads the same job without).
    expect(network.callsTo(getJob).map((call) => call.url.searchParams.get('extra_navigation_data'))).toContain('true');
  });

  it('highlights the robot of the robot parameter and selects its floor', async () => {
    const network = signedIn({
      buildings: [building(B1, 'Main'), building(B2, 'Annex')],
      floors: [floor(F1, 'Ground', B1), floor(F2, 'First', B2)],
      robots: [robotFixture({ robot_id: BRAVO, name: 'Bravo', floor_id: F2, building_id: B2, pose: { x: 0, y: 0, theta: 1 } })],
    });
    await renderApp({ path: `/map?robot=${BRAVO}`, network });
    expect(await screen.findByRole('img', { name: 'Floor plan of First' })).toBeInTheDocument();
    expect(floorSelect()).toHaveValue(F2);
    expect(screen.getByTestId('map-robot-list')).toHaveTextContent('Bravo: in the corridor (selected)');
    expect(screen.getByTestId('robot-marker').querySelector('circle')).toHaveAttribute('fill', '#ffc107');
  });

  it('says no robot selected when the robot parameter names no robot with a place', async () => {
    const network = signedIn({ buildings: [building(B1, 'Main')], floors: [floor(F1, 'Ground', B1)] });
    await renderApp({ path: `/map?robot=${BRAVO}`, network });
    expect(await screen.findByText('No robot selected')).toBeInTheDocument();
  });

  it('shows the failed-to-load message when the map cannot be loaded', async () => {
    const network = signedIn({ buildings: [building(B1, 'Main')], floors: [floor(F1, 'Ground', B1)] }).on(getFloorMapMetadata, {
      status: 500,
      body: { error: 'internal', message: 'boom' },
    });
    await renderApp({ path: '/map', network });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load map');
    expect(screen.queryByRole('img', { name: /Floor plan/ })).toBeNull();
  });
});
