import {
  createJob,
  getAction,
  getBuildings,
  getDoses,
  getFloorRobots,
  getFloors,
  getJob,
  getMyProfile,
  getRobots,
  getRooms,
  listJobs,
  startJobNow,
  updateJob,
} from '@uvd/contracts';
import { Building, Floor, Job, JobInput, Room } from '@uvd/contracts';
// Loaded before the test fakes Date, so TZDate extends the real Date (the editor's chunk loads later).
import '@date-fns/tz';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import type { RecordedRequest, Reply } from '../../testing/fake-network.ts';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { fakeIdentity, sessionUser, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { fixtureId, robotFixture } from '../../testing/robot-fixtures.ts';
import { readJobFocus } from './job-focus.ts';

// 09:15:30 in Helsinki (UTC+2 in November).
const NOW = new Date('2026-11-23T07:15:30Z');
const JOB = fixtureId(900);

const building = (n: number, name: string) => Building.parse({ building_id: fixtureId(100 + n), building_name: name });
const floor = (n: number, buildingNo: number, name: string) =>
  Floor.parse({ floor_id: fixtureId(200 + n), floor_name: name, building_id: fixtureId(100 + buildingNo), level: n });
const room = (n: number, floorNo: number, name: string) =>
  Room.parse({
    room_id: fixtureId(300 + n),
    room_name: name,
    order_no: n,
    dose: null,
    floor_id: fixtureId(200 + floorNo),
    building_id: fixtureId(floorNo === 3 ? 102 : 101),
    ready_for_disinfection: true,
  });

const NORTH = building(1, 'North wing');
const SOUTH = building(2, 'South wing');
const FLOORS = [floor(1, 1, 'Ground floor'), floor(2, 1, 'First floor'), floor(3, 2, 'Basement')];
const ROBOTS = [
  robotFixture({ robot_id: fixtureId(401), name: 'Alpha', floor_id: fixtureId(201) }),
  robotFixture({ robot_id: fixtureId(402), name: 'Bravo', floor_id: fixtureId(201) }),
  robotFixture({ robot_id: fixtureId(403), name: 'Charlie', floor_id: fixtureId(202) }),
  robotFixture({ robot_id: fixtureId(404), name: 'Delta', floor_id: fixtureId(203) }),
];
const ROOMS = [room(1, 1, 'Ward 1'), room(2, 1, 'Ward 2'), room(3, 1, 'Ward 3'), room(4, 2, 'Lab'), room(5, 3, 'Storage')];
const ALPHA = fixtureId(401);

const savedJob = (request: RecordedRequest, overrides: Partial<Job> = {}): Job => {
  const input = JobInput.parse(JSON.parse(request.body));
  return Job.parse({
    job_id: JOB,
    name: input.name,
    status: 'Scheduled',
    robot_id: ALPHA,
    robot_name: 'Alpha',
    active_state: null,
    start_time: input.start_time,
    created_at: NOW.toISOString(),
    created_by: 'olivia',
    notes: input.notes,
    rooms: input.rooms,
    start_now: input.start_now,
    performed: false,
    ...overrides,
  });
};

const editorNetwork = ({ buildings = [NORTH, SOUTH], timezone = 'Europe/Helsinki' } = {}) => {
  storeSession();
  return fakeIdentity(new FakeNetwork())
    .on(getMyProfile, { status: 200, body: sessionUser(['done-teleoperator'], { timezone }) })
    .on(getBuildings, { status: 200, body: { data: buildings } })
    .on(getFloors, (request) => ({
      status: 200,
      body: { data: FLOORS.filter((candidate) => candidate.building_id === request.url.searchParams.get('building_id')) },
    }))
    .on(getFloorRobots, (request) => ({
      status: 200,
      body: { robot_list: ROBOTS.filter((robot) => robot.floor_id === request.url.searchParams.get('floor_id')).map((robot) => robot.robot_id) },
    }))
    .on(getRobots, { status: 200, body: { count: ROBOTS.length, payload: ROBOTS } })
    .on(getRooms, (request) => ({
      status: 200,
      body: { data: ROOMS.filter((candidate) => request.url.searchParams.getAll('floor_id_list').includes(candidate.floor_id)) },
    }))
    .on(getDoses, { status: 200, body: { uvc_doses: [30, 60, 90], default_dose: 60 } })
    .on(createJob, (request) => ({ status: 200, body: savedJob(request) }))
    .on(updateJob, (request) => ({ status: 200, body: savedJob(request) }))
    .on(startJobNow, { status: 200, body: { data: true } })
    .on(listJobs, { status: 200, body: { count: 0, payload: [] } })
    .on(getAction, { status: 204 });
};

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
  // The jobs list opened after a save subscribes to its live stream with the page's fetch.
  vi.stubGlobal('fetch', () => Promise.resolve(new FakeEventStream().response));
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const openEditor = async (network: FakeNetwork, path = '/jobs/create') => {
  const view = await renderApp({ path, network });
  expect(await screen.findByRole('heading', { level: 1, name: path === '/jobs/create' ? 'New job' : 'Edit job' })).toBeInTheDocument();
  return view;
};

const select = (label: string) => screen.getByLabelText<HTMLSelectElement>(label, { selector: 'select' });
const selectedText = (label: string) => select(label).selectedOptions[0]?.textContent;

const choose = async (label: string, option: string) => {
  await waitFor(() => {
    expect(within(select(label)).getByRole('option', { name: option })).toBeInTheDocument();
  });
  await waitFor(() => {
    expect(select(label)).toBeEnabled();
  });
  await userEvent.selectOptions(select(label), option);
};

/** Building, floor and robot chosen, as a user does. */
const chooseAlpha = async () => {
  await choose('Building', 'North wing');
  await choose('Floor', 'Ground floor');
  await choose('Robot', 'Alpha');
};

const cardNames = () => screen.queryAllByTestId('job-room-card').map((card) => within(card).getByText(/^Ward|^Lab|^Storage/).textContent);

const bodyOf = (request: RecordedRequest | undefined): unknown => JSON.parse(request?.body ?? 'null');

describe('job editor: form and defaults (behaviour §2, §5)', () => {
  it("names the job after the user's given name and now, and starts it now, in the user's timezone", async () => {
    await openEditor(editorNetwork());
    expect(screen.getByLabelText('Name')).toHaveValue('Olivia 23.11.2026 09:15');
    expect(screen.getByLabelText('Date')).toHaveValue('2026-11-23');
    expect(screen.getByLabelText('Hours')).toHaveValue(9);
    expect(screen.getByLabelText('Minutes')).toHaveValue(15);
    expect(screen.getByLabelText('Notes').tagName).toBe('TEXTAREA');
    expect(screen.getByText('Times are in Europe/Helsinki.')).toBeInTheDocument();
  });

  it('uses the timezone of the signed-in user, not the browser', async () => {
    await openEditor(editorNetwork({ timezone: 'America/New_York' }));
    expect(screen.getByLabelText('Name')).toHaveValue('Olivia 23.11.2026 02:15');
    expect(screen.getByLabelText('Hours')).toHaveValue(2);
  });

  it('start immediately hides date and time and turns Save into Start now', async () => {
    await openEditor(editorNetwork());
    expect(screen.getByRole('button', { name: 'Save' })).toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('Start immediately'));
    expect(screen.queryByLabelText('Date')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Hours')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Minutes')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start now' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('Start immediately'));
    expect(screen.getByLabelText('Date')).toBeInTheDocument();
  });

  it('cancel goes back to the jobs list without saving', async () => {
    const network = editorNetwork();
    const { router } = await openEditor(network);
    await userEvent.click(screen.getByRole('link', { name: 'Cancel' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(network.callsTo(createJob)).toHaveLength(0);
  });
});

describe('job editor: back to the list it came from (issue #25 item 6)', () => {
  const LIST = '?status=Scheduled&offset=10&limit=10';

  it('Cancel returns to the page and filters the editor was opened from', async () => {
    const network = editorNetwork().on(listJobs, { status: 200, body: { count: 25, payload: [] } });
    const { router } = await renderApp({ path: `/jobs${LIST}`, network });
    await userEvent.click(await screen.findByRole('link', { name: 'New job' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'New job' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Cancel' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(router.location().search).toBe(LIST);
    expect(network.callsTo(createJob)).toHaveLength(0);
  });

  it('Save returns there too, with the saved job expanded', async () => {
    const network = editorNetwork().on(listJobs, { status: 200, body: { count: 25, payload: [] } });
    const { router } = await renderApp({ path: `/jobs${LIST}`, network });
    await userEvent.click(await screen.findByRole('link', { name: 'New job' }));
    await screen.findByRole('heading', { level: 1, name: 'New job' });
    await chooseAlpha();
    await choose('Room', 'Ward 1');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(router.location().search).toBe(LIST);
    expect(readJobFocus(router.location().state)).toBe(JOB);
  });
});

describe('job editor: building → floor → robot (behaviour §4)', () => {
  it('enables each select once its parent is chosen, and a change clears the selects below it', async () => {
    await openEditor(editorNetwork());
    await waitFor(() => {
      expect(within(select('Building')).getByRole('option', { name: 'South wing' })).toBeInTheDocument();
    });
    expect(select('Building')).toHaveValue('');
    expect(select('Floor')).toBeDisabled();
    expect(select('Robot')).toBeDisabled();
    expect(select('Room')).toBeDisabled();

    await chooseAlpha();
    expect(selectedText('Robot')).toBe('Alpha');
    expect(within(select('Robot')).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose…', 'Alpha', 'Bravo']);

    // Another floor clears the robot (First floor has only Charlie, who is then chosen for the user).
    await choose('Floor', 'First floor');
    await waitFor(() => {
      expect(selectedText('Robot')).toBe('Charlie');
    });
    await choose('Floor', 'Ground floor');
    await waitFor(() => {
      expect(select('Robot')).toHaveValue('');
    });

    // Another building clears floor and robot; South wing's sole floor and that floor's sole robot are chosen.
    await choose('Building', 'South wing');
    await waitFor(() => {
      expect(selectedText('Floor')).toBe('Basement');
    });
    await waitFor(() => {
      expect(selectedText('Robot')).toBe('Delta');
    });
  });

  it('names a robot on the floor that has not reported, or is offline, as offline', async () => {
    const robots = [
      ...ROBOTS,
      robotFixture({ robot_id: fixtureId(405), name: 'Echo', mode: 0, battery: null, signal: null, floor_id: fixtureId(201) }),
      robotFixture({ robot_id: fixtureId(406), name: 'Foxtrot', mode: 0, battery: 40, signal: null, floor_id: fixtureId(201) }),
    ];
    const network = editorNetwork()
      .on(getRobots, { status: 200, body: { count: robots.length, payload: robots } })
      .on(getFloorRobots, (request) => ({
        status: 200,
        body: { robot_list: robots.filter((robot) => robot.floor_id === request.url.searchParams.get('floor_id')).map((robot) => robot.robot_id) },
      }));
    await openEditor(network);
    await choose('Building', 'North wing');
    await choose('Floor', 'Ground floor');
    await waitFor(() => {
      expect(within(select('Robot')).getAllByRole('option').map((option) => option.textContent)).toEqual([
        'Choose…',
        'Alpha',
        'Bravo',
        'Echo (offline)',
        'Foxtrot (offline)',
      ]);
    });
  });

  it('offers only disinfection robots: a delivery robot on the floor carries deliveries, not jobs', async () => {
    const robots = [...ROBOTS, robotFixture({ robot_id: fixtureId(407), name: 'Courier-1', kind: 'delivery', floor_id: fixtureId(201) })];
    const network = editorNetwork()
      .on(getRobots, { status: 200, body: { count: robots.length, payload: robots } })
      .on(getFloorRobots, (request) => ({
        status: 200,
        body: { robot_list: robots.filter((robot) => robot.floor_id === request.url.searchParams.get('floor_id')).map((robot) => robot.robot_id) },
      }));
    await openEditor(network);
    await choose('Building', 'North wing');
    await choose('Floor', 'Ground floor');
    await waitFor(() => {
      expect(within(select('Robot')).getAllByRole('option').map((option) => option.textContent)).toEqual(['Choose…', 'Alpha', 'Bravo']);
    });
  });

  it('chooses a sole building for the user', async () => {
    await openEditor(editorNetwork({ buildings: [NORTH] }));
    await waitFor(() => {
      expect(selectedText('Building')).toBe('North wing');
    });
    expect(select('Floor')).toBeEnabled();
  });

  it('says when the chosen floor has no robot', async () => {
    const network = editorNetwork().on(getFloorRobots, { status: 200, body: { robot_list: [] } });
    await openEditor(network);
    await choose('Building', 'North wing');
    await choose('Floor', 'Ground floor');
    expect(await screen.findByText('No robots on this floor')).toBeInTheDocument();
    expect(select('Robot')).toHaveAccessibleDescription('No robots on this floor');
  });

  it('locks the selects while the page scrolls, for 200 ms after the last scroll', async () => {
    await openEditor(editorNetwork());
    await waitFor(() => {
      expect(select('Building')).toBeEnabled();
    });
    fireEvent.scroll(window);
    expect(select('Building')).toBeDisabled();
    await waitFor(() => {
      expect(select('Building')).toBeEnabled();
    });
  });
});

describe('job editor: rooms (behaviour §2, §5)', () => {
  it('appends a chosen room at once with the chosen dose; a room twice is refused with a toast', async () => {
    await openEditor(editorNetwork());
    await chooseAlpha();
    await waitFor(() => {
      expect(select('Dose')).toHaveValue('60');
    });
    await choose('Room', 'Ward 1');
    expect(cardNames()).toEqual(['Ward 1']);
    expect(select('Room')).toHaveValue('');
    expect(screen.getByText('Ward 1 added to the job.')).toHaveAttribute('role', 'status');
    // Once a room is in the job the cascade is fixed: the rooms belong to that floor.
    expect(select('Building')).toBeDisabled();
    expect(select('Floor')).toBeDisabled();
    expect(select('Robot')).toBeDisabled();

    await userEvent.selectOptions(select('Dose'), '90');
    await choose('Room', 'Ward 2');
    const cards = screen.getAllByTestId('job-room-card');
    expect(within(cards[0] as HTMLElement).getByRole('combobox', { name: 'Dose of Ward 1' })).toHaveValue('60');
    expect(within(cards[1] as HTMLElement).getByRole('combobox', { name: 'Dose of Ward 2' })).toHaveValue('90');

    await choose('Room', 'Ward 1');
    expect(await screen.findByText('Duplicate room. A room can only be once in a job.')).toBeInTheDocument();
    expect(cardNames()).toEqual(['Ward 1', 'Ward 2']);
  });

  it('moves rooms up and down and removes them; the cascade opens again when none is left', async () => {
    await openEditor(editorNetwork());
    await chooseAlpha();
    for (const name of ['Ward 1', 'Ward 2', 'Ward 3']) await choose('Room', name);
    expect(cardNames()).toEqual(['Ward 1', 'Ward 2', 'Ward 3']);
    expect(screen.getByRole('button', { name: 'Move up: Ward 1' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Move down: Ward 3' })).toBeDisabled();

    await userEvent.click(screen.getByRole('button', { name: 'Move up: Ward 3' }));
    expect(cardNames()).toEqual(['Ward 1', 'Ward 3', 'Ward 2']);
    await userEvent.click(screen.getByRole('button', { name: 'Move up: Ward 3' }));
    expect(cardNames()).toEqual(['Ward 3', 'Ward 1', 'Ward 2']);
    // At the top its move-up button is disabled, so the focus goes to its move-down button.
    expect(screen.getByRole('button', { name: 'Move down: Ward 3' })).toHaveFocus();
    await userEvent.click(screen.getByRole('button', { name: 'Move down: Ward 1' }));
    expect(cardNames()).toEqual(['Ward 3', 'Ward 2', 'Ward 1']);

    await userEvent.click(screen.getByRole('button', { name: 'Remove: Ward 2' }));
    expect(cardNames()).toEqual(['Ward 3', 'Ward 1']);
    await userEvent.click(screen.getByRole('button', { name: 'Remove: Ward 3' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove: Ward 1' }));
    expect(cardNames()).toEqual([]);
    expect(screen.getByText('No rooms added yet.')).toBeInTheDocument();
    expect(select('Building')).toBeEnabled();
  });
});

describe('job editor: validation (behaviour §5)', () => {
  it('shows Required next to name, building, floor and robot and asks for a room; nothing is sent', async () => {
    const network = editorNetwork();
    await openEditor(network);
    await userEvent.clear(screen.getByLabelText('Name'));
    await userEvent.type(screen.getByLabelText('Name'), '   ');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    for (const label of ['Name', 'Building', 'Floor', 'Robot']) {
      const control = screen.getByLabelText(label);
      expect(control, label).toHaveAttribute('aria-invalid', 'true');
      expect(control, label).toHaveAccessibleDescription('Required');
    }
    expect(select('Room')).toHaveAccessibleDescription(expect.stringContaining('At least one room is required for job creation'));
    expect(screen.getByLabelText('Name')).toHaveFocus();
    expect(network.callsTo(createJob)).toHaveLength(0);

    // Messages follow the fields once shown.
    await userEvent.type(screen.getByLabelText('Name'), 'Night round');
    expect(screen.getByLabelText('Name')).toHaveAttribute('aria-invalid', 'false');
  });

  it('refuses a start in the past (01.01.2020) on the date, as the server would, and sends nothing', async () => {
    const network = editorNetwork();
    await openEditor(network);
    await chooseAlpha();
    await choose('Room', 'Ward 1');
    fireEvent.change(screen.getByLabelText('Date'), { target: { value: '2020-01-01' } });
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByLabelText('Date')).toHaveAccessibleDescription('The start time must not be in the past');
    expect(screen.getByLabelText('Date')).toHaveFocus();
    expect(network.callsTo(createJob)).toHaveLength(0);

    // Today at a later hour is fine.
    fireEvent.change(screen.getByLabelText('Date'), { target: { value: '2026-11-23' } });
    await userEvent.clear(screen.getByLabelText('Hours'));
    await userEvent.type(screen.getByLabelText('Hours'), '23');
    expect(screen.getByLabelText('Date')).toHaveAttribute('aria-invalid', 'false');
  });

  it('checks hours 0–23, minutes 0–59 and the date', async () => {
    const network = editorNetwork();
    await openEditor(network);
    await chooseAlpha();
    await choose('Room', 'Ward 1');
    await userEvent.clear(screen.getByLabelText('Hours'));
    await userEvent.type(screen.getByLabelText('Hours'), '24');
    await userEvent.clear(screen.getByLabelText('Minutes'));
    await userEvent.type(screen.getByLabelText('Minutes'), '60');
    fireEvent.change(screen.getByLabelText('Date'), { target: { value: '' } });
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));

    expect(screen.getByLabelText('Hours')).toHaveAccessibleDescription('Hours must be between 0 and 23');
    expect(screen.getByLabelText('Minutes')).toHaveAccessibleDescription('Minutes must be between 0 and 59');
    expect(screen.getByLabelText('Date')).toHaveAccessibleDescription('Enter a valid date');
    expect(screen.getByLabelText('Date')).toHaveFocus();
    expect(network.callsTo(createJob)).toHaveLength(0);

    // Starting immediately needs no date or time.
    await userEvent.click(screen.getByLabelText('Start immediately'));
    await userEvent.click(screen.getByRole('button', { name: 'Start now' }));
    expect(await screen.findByRole('dialog', { name: 'Start this job now?' })).toBeInTheDocument();
  });
});

describe('job editor: save and start (behaviour §3, §4)', () => {
  const fillThreeRooms = async () => {
    await chooseAlpha();
    await choose('Room', 'Ward 2');
    await userEvent.selectOptions(select('Dose'), '90');
    await choose('Room', 'Ward 1');
    await choose('Room', 'Ward 3');
    await userEvent.type(screen.getByLabelText('Notes'), 'Bring the key');
  };

  it('creates a scheduled job for the robot (start_now false, seconds 0, rooms from 0), once, then opens it in the list', async () => {
    let answer: (reply: Reply) => void = () => undefined;
    const network = editorNetwork().on(createJob, () => new Promise<Reply>((resolve) => {
      answer = resolve;
    }));
    const { router } = await openEditor(network);
    await fillThreeRooms();
    await userEvent.clear(screen.getByLabelText('Hours'));
    await userEvent.type(screen.getByLabelText('Hours'), '14');
    await userEvent.clear(screen.getByLabelText('Minutes'));
    await userEvent.type(screen.getByLabelText('Minutes'), '30');

    const save = screen.getByRole('button', { name: 'Save' });
    await userEvent.click(save);
    await waitFor(() => {
      expect(network.callsTo(createJob)).toHaveLength(1);
    });
    expect(save).toBeDisabled();
    await userEvent.click(save);
    fireEvent.submit(save.closest('form') as HTMLFormElement);

    const call = network.callsTo(createJob)[0];
    expect(call?.url.pathname).toBe(`/api/jobs/jobs/${ALPHA}`);
    expect(call?.url.searchParams.get('start_now')).toBe('false');
    expect(bodyOf(call)).toEqual({
      name: 'Olivia 23.11.2026 09:15',
      notes: 'Bring the key',
      // 14:30 in Helsinki.
      start_time: '2026-11-23T12:30:00.000Z',
      rooms: [
        { room_id: fixtureId(302), dose: 60, order_no: 0 },
        { room_id: fixtureId(301), dose: 90, order_no: 1 },
        { room_id: fixtureId(303), dose: 90, order_no: 2 },
      ],
      start_now: false,
    });
    answer({ status: 200, body: savedJob(call as RecordedRequest) });

    expect(await screen.findByText('Job saved')).toBeInTheDocument();
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(readJobFocus(router.location().state)).toBe(JOB);
    expect(network.callsTo(createJob)).toHaveLength(1);
    expect(network.callsTo(startJobNow)).toHaveLength(0);
  });

  it('Start now asks first, then creates the job five minutes ahead with start_now, which the server starts in the same call', async () => {
    const network = editorNetwork().on(createJob, (request) => ({ status: 200, body: savedJob(request, { status: 'Running', active_state: 'disinfecting' }) }));
    const { router } = await openEditor(network);
    await fillThreeRooms();
    await userEvent.click(screen.getByLabelText('Start immediately'));
    await userEvent.click(screen.getByRole('button', { name: 'Start now' }));

    const dialog = await screen.findByRole('dialog', { name: 'Start this job now?' });
    expect(network.callsTo(createJob)).toHaveLength(0);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(network.callsTo(createJob)).toHaveLength(0);

    await userEvent.click(screen.getByRole('button', { name: 'Start now' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Start now' }));
    expect(await screen.findByText('Job started')).toBeInTheDocument();

    const call = network.callsTo(createJob)[0];
    expect(call?.url.searchParams.get('start_now')).toBe('true');
    expect(bodyOf(call)).toMatchObject({ start_now: true, start_time: '2026-11-23T07:20:00.000Z' });
    expect(network.callsTo(startJobNow)).toHaveLength(0);
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
  });

  // Before, the job was saved to start five minutes later while the editor said it could not be started.
  it('a start the robot cannot take now says why, in the form it keeps, and saves nothing; the user can then schedule it', async () => {
    const network = editorNetwork().on(
      createJob,
      { status: 409, body: { error: 'robot_busy', message: 'Robot "Alpha" is running another job.' } },
      { times: 1 },
    );
    const { router } = await openEditor(network);
    await chooseAlpha();
    await choose('Room', 'Ward 1');
    await userEvent.click(screen.getByLabelText('Start immediately'));
    await userEvent.click(screen.getByRole('button', { name: 'Start now' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Start now' }));

    const refusal = await screen.findByTestId('job-not-started');
    expect(refusal).toHaveRole('alert');
    expect(refusal).toHaveTextContent('Robot Alpha is running another job.');
    expect(refusal).toHaveTextContent('The job was not started and nothing was saved.');
    expect(screen.queryByText('Job saved')).not.toBeInTheDocument();
    expect(screen.queryByText('Job started')).not.toBeInTheDocument();
    expect(router.location().pathname).toBe('/jobs/create');
    expect(network.callsTo(startJobNow)).toHaveLength(0);
    expect(cardNames()).toEqual(['Ward 1']);

    await userEvent.click(screen.getByLabelText('Start immediately'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Job saved')).toBeInTheDocument();
    expect(bodyOf(network.callsTo(createJob)[1])).toMatchObject({ start_now: false });
  });

  it("a refused save shows the server's reason and the button works again", async () => {
    const network = editorNetwork().on(
      createJob,
      { status: 400, body: { error: 'duplicate_room', message: 'Duplicate room. A room can only be once in a job.' } },
      { times: 1 },
    );
    await openEditor(network);
    await chooseAlpha();
    await choose('Room', 'Ward 1');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Duplicate room. A room can only be once in a job.')).toBeInTheDocument();
    await waitFor(() => {
      expect(screen.getByRole('button', { name: 'Save' })).toBeEnabled();
    });
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Job saved')).toBeInTheDocument();
    expect(network.callsTo(createJob)).toHaveLength(2);
  });
});

describe('job editor: editing a saved job (behaviour §2 /jobs/edit/:jobid)', () => {
  const savedFixture = (overrides: Partial<Job> = {}) =>
    Job.parse({
      job_id: JOB,
      name: 'Morning round',
      status: 'Scheduled',
      robot_id: fixtureId(402),
      robot_name: 'Bravo',
      active_state: null,
      start_time: '2026-11-25T08:45:00Z',
      created_at: '2026-11-20T08:00:00Z',
      created_by: 'olivia',
      notes: 'Ward 2 first',
      rooms: [
        { room_id: fixtureId(301), order_no: 1, dose: 30, room_name: 'Ward 1', building_id: fixtureId(101), floor_id: fixtureId(201) },
        { room_id: fixtureId(302), order_no: 0, dose: 90, room_name: 'Ward 2', building_id: fixtureId(101), floor_id: fixtureId(201) },
      ],
      start_now: false,
      performed: false,
      ...overrides,
    });

  it('loads the job with its room data, pre-fills everything and saves with PUT', async () => {
    const network = editorNetwork().on(getJob, { status: 200, body: savedFixture() });
    const { router } = await openEditor(network, `/jobs/edit/${JOB}`);
    await waitFor(() => {
      expect(screen.getByLabelText('Name')).toHaveValue('Morning round');
    });
    expect(network.callsTo(getJob)[0]?.url.searchParams.get('extra_room_data')).toBe('true');
    expect(screen.getByLabelText('Notes')).toHaveValue('Ward 2 first');
    expect(screen.getByLabelText('Date')).toHaveValue('2026-11-25');
    expect(screen.getByLabelText('Hours')).toHaveValue(10);
    expect(screen.getByLabelText('Minutes')).toHaveValue(45);
    await waitFor(() => {
      expect(selectedText('Robot')).toBe('Bravo');
    });
    expect(selectedText('Building')).toBe('North wing');
    expect(selectedText('Floor')).toBe('Ground floor');
    expect(select('Robot')).toBeDisabled();
    expect(cardNames()).toEqual(['Ward 2', 'Ward 1']);

    await userEvent.click(screen.getByRole('button', { name: 'Move up: Ward 1' }));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Job saved')).toBeInTheDocument();

    const call = network.callsTo(updateJob)[0];
    expect(call?.url.pathname).toBe(`/api/jobs/jobs/${JOB}`);
    expect(bodyOf(call)).toEqual({
      name: 'Morning round',
      notes: 'Ward 2 first',
      start_time: '2026-11-25T08:45:00.000Z',
      rooms: [
        { room_id: fixtureId(301), dose: 30, order_no: 0 },
        { room_id: fixtureId(302), dose: 90, order_no: 1 },
      ],
      start_now: false,
    });
    expect(network.callsTo(createJob)).toHaveLength(0);
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
  });

  it("changes a room's dose on its card, and the saved job has the new dose", async () => {
    let saved = savedFixture();
    const network = editorNetwork()
      .on(getJob, () => ({ status: 200, body: saved }))
      .on(updateJob, (request) => {
        const input = JobInput.parse(JSON.parse(request.body));
        saved = savedFixture({
          rooms: input.rooms.map((room) => ({ ...room, room_name: ROOMS.find((r) => r.room_id === room.room_id)?.room_name, building_id: fixtureId(101), floor_id: fixtureId(201) })),
        });
        return { status: 200, body: saved };
      });
    const { router } = await openEditor(network, `/jobs/edit/${JOB}`);
    await waitFor(() => {
      expect(cardNames()).toEqual(['Ward 2', 'Ward 1']);
    });
    // A native select: keyboard and screen readers get the browser's own behaviour.
    const ward1 = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Dose of Ward 1' });
    expect(ward1.tagName).toBe('SELECT');
    expect(ward1).toHaveValue('30');
    await waitFor(() => {
      expect(within(ward1).getAllByRole('option').map((option) => option.textContent)).toEqual(['30', '60', '90']);
    });
    await userEvent.selectOptions(ward1, '60');
    expect(ward1).toHaveValue('60');
    expect(screen.getByRole('combobox', { name: 'Dose of Ward 2' })).toHaveValue('90');

    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Job saved')).toBeInTheDocument();
    expect(bodyOf(network.callsTo(updateJob)[0])).toMatchObject({
      rooms: [
        { room_id: fixtureId(302), dose: 90, order_no: 0 },
        { room_id: fixtureId(301), dose: 60, order_no: 1 },
      ],
    });
    // Opened again, the job shows the dose it was saved with.
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    await router.navigate(`/jobs/edit/${JOB}`);
    await waitFor(() => {
      expect(screen.getByRole('combobox', { name: 'Dose of Ward 1' })).toHaveValue('60');
    });
  });

  it('Start now on a saved job saves it five minutes ahead with start_now, which the server starts in the same call', async () => {
    const network = editorNetwork()
      .on(getJob, { status: 200, body: savedFixture() })
      .on(updateJob, (request) => ({ status: 200, body: savedJob(request, { status: 'Running', active_state: 'disinfecting' }) }));
    await openEditor(network, `/jobs/edit/${JOB}`);
    await waitFor(() => {
      expect(cardNames()).toEqual(['Ward 2', 'Ward 1']);
    });
    await userEvent.click(screen.getByLabelText('Start immediately'));
    await userEvent.click(screen.getByRole('button', { name: 'Start now' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Start now' }));
    expect(await screen.findByText('Job started')).toBeInTheDocument();
    expect(bodyOf(network.callsTo(updateJob)[0])).toMatchObject({ start_now: true, start_time: '2026-11-23T07:20:00.000Z' });
    expect(network.callsTo(startJobNow)).toHaveLength(0);
    expect(network.callsTo(createJob)).toHaveLength(0);
  });

  it('refuses a running job', async () => {
    const network = editorNetwork().on(getJob, { status: 200, body: savedFixture({ status: 'Running', active_state: 'disinfecting' }) });
    await openEditor(network, `/jobs/edit/${JOB}`);
    expect(await screen.findByRole('alert')).toHaveTextContent('A running job cannot be edited or deleted.');
    expect(screen.queryByLabelText('Name')).not.toBeInTheDocument();
  });

  it('shows a loading state, then jobEditor.error when the job cannot be loaded', async () => {
    let answer: (reply: Reply) => void = () => undefined;
    const network = editorNetwork().on(getJob, () => new Promise<Reply>((resolve) => {
      answer = resolve;
    }));
    await openEditor(network, `/jobs/edit/${JOB}`);
    expect(await screen.findByTestId('skeleton')).toBeInTheDocument();
    answer({ status: 404, body: { error: 'not_found', message: 'Job not found.' } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load the job.');
    expect(screen.getByRole('link', { name: 'Cancel' })).toHaveAttribute('href', '/jobs');
  });
});

describe('job editor in Finnish', () => {
  it('shows its labels and the duplicate-room toast in Finnish', async () => {
    const network = editorNetwork();
    await renderApp({ path: '/jobs/create', network, language: 'fi' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Uusi tehtävä' })).toBeInTheDocument();
    await choose('Rakennus', 'North wing');
    await choose('Kerros', 'Ground floor');
    await choose('Robotti', 'Alpha');
    await choose('Huone', 'Ward 1');
    await choose('Huone', 'Ward 1');
    expect(await screen.findByText('Huone on jo valittu. Sama huone voi olla tehtävässä vain kerran.')).toBeInTheDocument();
  });
});
