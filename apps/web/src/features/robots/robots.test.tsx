import { getRobots, postRobotCommand } from '@uvd/contracts';
import type { Role, Robot } from '@uvd/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeNetwork } from '../../testing/fake-network.ts';
import { fakeIdentity, storeSession } from '../../testing/fixtures.ts';
import { renderApp } from '../../testing/render-app.tsx';
import { FakeEventStream } from '../../testing/fake-event-stream.ts';
import { robotFixture } from '../../testing/robot-fixtures.ts';

const ALPHA = '0b8f3a52-51d4-4e0c-9d0f-2a6c7d8e9f01';
const BRAVO = '1c9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f02';
const CHARLIE = '2d9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f03';

/** The robot stream, opened with the page's fetch (the fake network serves the API client's calls only). */
let streams: { url: URL; headers: Headers; stream: FakeEventStream }[] = [];

beforeEach(() => {
  streams = [];
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const stream = new FakeEventStream();
    // The robot stream is what these tests watch; the prompts banner's actions stream, open on every screen, is not.
    if (url.pathname !== '/api/action/action/stream') streams.push({ url, headers: new Headers(init?.headers), stream });
    return Promise.resolve(stream.response);
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

const robots = (): Robot[] => [
  robotFixture({ robot_id: CHARLIE, name: 'charlie', mode: 1, signal: 700 }),
  robotFixture({ robot_id: ALPHA, name: 'Alpha', mode: 2, battery: 55, charging_status: 1, signal: 10 }),
  robotFixture({ robot_id: BRAVO, name: 'Bravo', mode: 0, signal: -1, stale: true }),
];

const signedIn = (roles: Role[] = ['done-teleoperator'], list: Robot[] = robots()) => {
  storeSession();
  return fakeIdentity(new FakeNetwork(), roles).on(getRobots, { status: 200, body: { count: list.length, payload: list } });
};

const rows = () => screen.getAllByTestId('robot-row');
const rowOf = (name: string) => {
  const row = rows().find((candidate) => within(candidate).queryByRole('button', { name }) !== null);
  if (!row) throw new Error(`no row ${name}`);
  return row;
};

const openRobots = async (network: FakeNetwork) => {
  const view = await renderApp({ path: '/robots', network });
  expect(await screen.findByRole('heading', { level: 1, name: 'Robots' })).toBeInTheDocument();
  await screen.findAllByTestId('robot-row');
  return view;
};

describe('robots table (behaviour §2)', () => {
  it('lists the robots sorted by name ascending, with battery, charging, signal and stale marks', async () => {
    const network = signedIn();
    await openRobots(network);
    expect(rows().map((row) => within(row).getAllByRole('button')[0]?.textContent)).toEqual(['Alpha', 'Bravo', 'charlie']);
    const query = network.callsTo(getRobots)[0]?.url.searchParams;
    expect(query?.get('offset')).toBe('0');
    expect(query?.get('limit')).toBe('50');

    expect(within(rowOf('Alpha')).getByTestId('battery')).toHaveTextContent('55 %');
    expect(within(rowOf('Alpha')).getByTestId('charging')).toHaveTextContent('Charging');
    expect(within(rowOf('charlie')).queryByTestId('charging')).toBeNull();
    expect(within(rowOf('Alpha')).getByTestId('signal')).toHaveTextContent('Full');
    expect(within(rowOf('Bravo')).getByTestId('signal')).toHaveTextContent('No signal');
    expect(within(rowOf('charlie')).getByTestId('signal')).toHaveTextContent('Low');
    expect(within(rowOf('Bravo')).getByText('Stale')).toBeInTheDocument();
    expect(within(rowOf('Alpha')).queryByText('Stale')).toBeNull();
  });

  it('shows robotTable.error when the list fails to load', async () => {
    storeSession();
    const network = fakeIdentity(new FakeNetwork()).on(getRobots, { status: 500, body: { error: 'internal', message: 'boom' } });
    await renderApp({ path: '/robots', network });
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load robots.');
  });

  it('shows the empty message when the caller sees no robots', async () => {
    await renderApp({ path: '/robots', network: signedIn(['done-teleoperator'], []) });
    expect(await screen.findByText('No robots')).toBeInTheDocument();
  });
});

describe('robot dialog (behaviour §2, §4)', () => {
  it('opens on a row click with the name, no mode for a teleoperator, and a link to the robot jobs', async () => {
    const user = userEvent.setup();
    const { router } = await openRobots(signedIn(['done-teleoperator']));
    await user.click(within(rowOf('charlie')).getByText('Idle'));
    const dialog = await screen.findByRole('dialog', { name: 'charlie' });
    expect(within(dialog).queryByText('Mode')).toBeNull();
    expect(within(dialog).queryByTestId('robot-mode')).toBeNull();
    const link = within(dialog).getByRole('link', { name: "Show this robot's jobs" });
    expect(link).toHaveAttribute('href', `/jobs?robot=${CHARLIE}`);
    await user.click(link);
    await waitFor(() => {
      expect(router.location().pathname).toBe('/jobs');
    });
    expect(router.location().search).toBe(`?robot=${CHARLIE}`);
  });

  it('opens from the keyboard and shows the mode label to the restricted roles', async () => {
    for (const role of ['done-admin', 'done-superadmin'] as const) {
      const user = userEvent.setup();
      const { unmount } = await openRobots(signedIn([role]));
      within(rowOf('Bravo')).getByRole('button', { name: 'Bravo' }).focus();
      await user.keyboard('{Enter}');
      const dialog = await screen.findByRole('dialog', { name: 'Bravo' });
      expect(within(dialog).getByTestId('robot-mode')).toHaveTextContent('Offline');
      await user.click(within(dialog).getAllByRole('button', { name: 'Close' })[0] ?? dialog);
      await waitFor(() => {
        expect(screen.queryByRole('dialog')).toBeNull();
      });
      // Space works as well.
      within(rowOf('charlie')).getByRole('button', { name: 'charlie' }).focus();
      await user.keyboard(' ');
      expect(within(await screen.findByRole('dialog', { name: 'charlie' })).getByTestId('robot-mode')).toHaveTextContent('Manual');
      unmount();
    }
  });

  it('enables every control in Autonomous mode, Stop alone in the other modes a robot reports in, none offline', async () => {
    const user = userEvent.setup();
    await openRobots(signedIn(['done-admin']));
    const hint = 'Start / resume, Pause and Home need Autonomous mode; Stop works in every mode.';
    for (const [name, enabled] of [
      ['Alpha', ['Start / resume', 'Pause', 'Stop', 'Home']],
      ['Bravo', []],
      ['charlie', ['Stop']],
    ] as const) {
      await user.click(within(rowOf(name)).getByRole('button', { name }));
      const dialog = await screen.findByRole('dialog', { name });
      const controls = within(within(dialog).getByRole('group', { name: 'Robot controls' })).getAllByRole('button');
      expect(controls.map((button) => button.textContent)).toEqual(['Start / resume', 'Pause', 'Stop', 'Home']);
      expect(controls.filter((button) => !button.hasAttribute('disabled')).map((button) => button.textContent)).toEqual(enabled);
      if (name === 'charlie') expect(within(dialog).getByText(hint)).toBeInTheDocument();
      else expect(within(dialog).queryByText(hint)).toBeNull();
      if (name === 'Bravo') expect(within(dialog).getByText(/This robot is offline/)).toBeInTheDocument();
      await user.keyboard('{Escape}');
      await waitFor(() => {
        expect(screen.queryByRole('dialog')).toBeNull();
      });
    }
  });

  it('asks for confirmation, sends the command and toasts robotControls.commandSuccess', async () => {
    const user = userEvent.setup();
    const network = signedIn(['done-teleoperator']).on(postRobotCommand, { status: 200, body: { data: true } });
    await openRobots(network);
    await user.click(within(rowOf('Alpha')).getByRole('button', { name: 'Alpha' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Alpha' })).getByRole('button', { name: 'Pause' }));
    const confirm = await screen.findByRole('dialog', { name: 'Pause Alpha?' });
    expect(network.callsTo(postRobotCommand)).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'Pause' }));
    expect(await screen.findByText('Command sent')).toBeInTheDocument();
    const calls = network.callsTo(postRobotCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url.pathname).toBe(`/api/command/${ALPHA}`);
    expect(calls[0]?.url.searchParams.get('command')).toBe('pause');
    // One Idempotency-Key per click: a retry of this command would carry the same one.
    expect(calls[0]?.headers.get('Idempotency-Key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // Back to the robot dialog once the command is done.
    expect(await screen.findByRole('dialog', { name: 'Alpha' })).toBeInTheDocument();
  });

  it('sends nothing when the confirmation is cancelled', async () => {
    const user = userEvent.setup();
    const network = signedIn().on(postRobotCommand, { status: 200, body: { data: true } });
    await openRobots(network);
    await user.click(within(rowOf('Alpha')).getByRole('button', { name: 'Alpha' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Alpha' })).getByRole('button', { name: 'Home' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Send Alpha home?' })).getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByRole('dialog', { name: 'Alpha' })).toBeInTheDocument();
    expect(network.callsTo(postRobotCommand)).toHaveLength(0);
  });

  it('toasts robotControls.commandFail for a falsy data reply and for a refusal it has no words for', async () => {
    for (const reply of [
      { status: 200, body: { data: false } },
      { status: 409, body: { error: 'idempotency_key_reused', message: 'The key was used for another command' } },
    ]) {
      const user = userEvent.setup();
      const network = signedIn().on(postRobotCommand, reply);
      const { unmount } = await openRobots(network);
      await user.click(within(rowOf('Alpha')).getByRole('button', { name: 'Alpha' }));
      await user.click(within(await screen.findByRole('dialog', { name: 'Alpha' })).getByRole('button', { name: 'Stop' }));
      await user.click(within(await screen.findByRole('dialog', { name: 'Stop Alpha?' })).getByRole('button', { name: 'Stop' }));
      expect(await screen.findByText('Command failed')).toBeInTheDocument();
      expect(screen.queryByText('Command sent')).toBeNull();
      unmount();
    }
  });
});

describe('refused robot commands', () => {
  it('say why nothing was sent and what to do: no work to pause, nothing to stop, at home already, offline, not Autonomous', async () => {
    for (const [control, code, text] of [
      ['Pause', 'robot_idle', 'The robot has no work to pause.'],
      ['Stop', 'robot_offline', 'The robot is offline: the command was not sent. Check its network, or end the job.'],
      ['Home', 'robot_not_autonomous', 'The robot is not in Autonomous mode: only Stop works now. Switch it to Autonomous at the robot.'],
      ['Stop', 'nothing_to_stop', 'The robot has nothing to stop.'],
      ['Home', 'robot_at_home', 'The robot is at home already.'],
    ] as const) {
      const user = userEvent.setup();
      const network = signedIn().on(postRobotCommand, { status: 409, body: { error: code, message: 'refused' } });
      const { unmount } = await openRobots(network);
      await user.click(within(rowOf('Alpha')).getByRole('button', { name: 'Alpha' }));
      await user.click(within(await screen.findByRole('dialog', { name: 'Alpha' })).getByRole('button', { name: control }));
      const confirm = await screen.findByRole('dialog', { name: /\?$/ });
      await user.click(within(confirm).getByRole('button', { name: control }));
      expect(await screen.findByText(text)).toBeInTheDocument();
      expect(screen.queryByText('Command sent')).toBeNull();
      unmount();
    }
  });
});

describe('live robot updates (behaviour §4)', () => {
  it('shows a command a robot never received as an error toast naming the robot and the command', async () => {
    await openRobots(signedIn(['done-admin']));
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    const [live] = streams;
    live?.stream.push(
      `id: 7\nevent: command_undelivered\ndata: ${JSON.stringify({
        command_id: CHARLIE,
        robot_id: BRAVO,
        job_id: null,
        command: 'home',
        issued_at: '2026-11-20T10:00:00Z',
        given_up_at: '2026-11-20T10:01:00Z',
        reason: 'unacknowledged',
      })}\n\n`,
    );
    expect(await screen.findByText("Robot Bravo did not receive 'home'.")).toBeInTheDocument();
  });

  it('opens one stream with the bearer header for the listed robots and applies each update to the table and dialog', async () => {
    const user = userEvent.setup();
    await openRobots(signedIn(['done-admin']));
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    const [live] = streams;
    if (!live) throw new Error('no stream');
    expect(live.url.pathname).toBe('/api/robot/stream');
    expect(live.url.searchParams.get('robot_list')?.split(',').sort()).toEqual([ALPHA, BRAVO, CHARLIE].sort());
    expect(live.headers.get('Authorization')).toMatch(/^Bearer access-/);

    live.stream.event('robot_update', { robot_id: CHARLIE, field: 'battery', value: 12, charging_status: 1 });
    await waitFor(() => {
      expect(within(rowOf('charlie')).getByTestId('battery')).toHaveTextContent('12 %');
    });
    expect(within(rowOf('charlie')).getByTestId('charging')).toBeInTheDocument();

    live.stream.event('robot_update', { robot_id: ALPHA, field: 'ping', value: 500, timeout: true });
    await waitFor(() => {
      expect(within(rowOf('Alpha')).getByTestId('signal')).toHaveTextContent('No signal');
    });
    live.stream.event('robot_update', { robot_id: ALPHA, field: 'ping', value: 300, timeout: false });
    await waitFor(() => {
      expect(within(rowOf('Alpha')).getByTestId('signal')).toHaveTextContent('Medium');
    });

    live.stream.event('robot_update', { robot_id: BRAVO, field: 'stale', value: false });
    live.stream.event('robot_update', { robot_id: BRAVO, field: 'status', value: 'charging' });
    await waitFor(() => {
      expect(within(rowOf('Bravo')).queryByText('Stale')).toBeNull();
    });
    expect(within(rowOf('Bravo')).getByText('Charging')).toBeInTheDocument();

    // A mode change reaches an open dialog: the controls enable once the robot turns Autonomous.
    await user.click(within(rowOf('charlie')).getByRole('button', { name: 'charlie' }));
    const dialog = await screen.findByRole('dialog', { name: 'charlie' });
    expect(within(dialog).getByRole('button', { name: 'Pause' })).toBeDisabled();
    live.stream.event('robot_update', { robot_id: CHARLIE, field: 'mode', value: 2 });
    await waitFor(() => {
      expect(within(dialog).getByRole('button', { name: 'Pause' })).toBeEnabled();
    });
    expect(within(dialog).getByTestId('robot-mode')).toHaveTextContent('Autonomous');
    expect(streams).toHaveLength(1);
  });

  it('shows a robot asking at a door as waiting for an answer, not Idle, in the table and its dialog', async () => {
    const user = userEvent.setup();
    await openRobots(signedIn(['done-admin']));
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    const [live] = streams;
    live?.stream.event('robot_update', { robot_id: ALPHA, field: 'status', value: 'waiting' });
    await waitFor(() => {
      expect(within(rowOf('Alpha')).getByText('Waiting for an answer')).toBeInTheDocument();
    });
    expect(within(rowOf('Alpha')).queryByText('Idle')).toBeNull();
    await user.click(within(rowOf('Alpha')).getByRole('button', { name: 'Alpha' }));
    const dialog = await screen.findByRole('dialog', { name: 'Alpha' });
    expect(within(dialog).getByText('Waiting for an answer')).toBeInTheDocument();
    live?.stream.event('robot_update', { robot_id: ALPHA, field: 'status', value: 'on_order' });
    await waitFor(() => {
      expect(within(dialog).getByText('On a job, standing still')).toBeInTheDocument();
    });
  });

  it('refetches the robot list after the stream reconnects: a battery changed while it was down shows without a reload', async () => {
    let list = robots();
    const network = signedIn().on(getRobots, () => ({ status: 200, body: { count: list.length, payload: list } }));
    await openRobots(network);
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    expect(within(rowOf('Alpha')).getByTestId('battery')).toHaveTextContent('55 %');
    const fetchedBefore = network.callsTo(getRobots).length;

    // The robot reports 31 % while the stream is down; the server replays events, not telemetry it never logged.
    list = list.map((robot) => (robot.robot_id === ALPHA ? { ...robot, battery: 31, charging_status: 0 } : robot));
    streams[0]?.stream.end();
    // The hub waits 1 s before it reconnects; a loaded machine may take a while longer.
    await waitFor(
      () => {
        expect(within(rowOf('Alpha')).getByTestId('battery')).toHaveTextContent('31 %');
      },
      { timeout: 10_000 },
    );
    expect(streams).toHaveLength(2);
    expect(within(rowOf('Alpha')).queryByTestId('charging')).toBeNull();
    expect(network.callsTo(getRobots)).toHaveLength(fetchedBefore + 1);
    // The reopened stream stays live.
    streams[1]?.stream.event('robot_update', { robot_id: ALPHA, field: 'battery', value: 30, charging_status: 0 });
    await waitFor(() => {
      expect(within(rowOf('Alpha')).getByTestId('battery')).toHaveTextContent('30 %');
    });
  });

  it('refetches the robot list on a resync frame and keeps reading the same stream', async () => {
    let list = robots();
    const network = signedIn().on(getRobots, () => ({ status: 200, body: { count: list.length, payload: list } }));
    await openRobots(network);
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    const fetchedBefore = network.callsTo(getRobots).length;

    list = list.map((robot) => (robot.robot_id === ALPHA ? { ...robot, battery: 31 } : robot));
    streams[0]?.stream.push(`id: 42\nevent: resync\ndata: ${JSON.stringify({ reason: 'horizon' })}\n\n`);
    await waitFor(() => {
      expect(within(rowOf('Alpha')).getByTestId('battery')).toHaveTextContent('31 %');
    });
    expect(network.callsTo(getRobots)).toHaveLength(fetchedBefore + 1);
    streams[0]?.stream.event('robot_update', { robot_id: CHARLIE, field: 'battery', value: 12, charging_status: 0 });
    await waitFor(() => {
      expect(within(rowOf('charlie')).getByTestId('battery')).toHaveTextContent('12 %');
    });
    expect(streams).toHaveLength(1);
  });

  it('closes the stream when the screen is left', async () => {
    const { router } = await openRobots(signedIn());
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    await router.navigate('/settings');
    await waitFor(() => {
      expect(streams[0]?.stream.cancelled).toBe(true);
    });
  });
});

describe('robots that are not reporting', () => {
  const DELTA = '3e9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f04';
  const ECHO = '4f9f3a52-51d4-4e0c-9d0f-2a6c7d8e9f05';
  // As the server sends a registered robot it has not heard from: Offline, no battery, no signal, a placeholder status.
  const unheard = () => robotFixture({ robot_id: DELTA, name: 'Delta', status: 'idle', mode: 0, battery: null, signal: null, last_seen: null });
  // And one that reported, then disconnected (or the server restarted): its last battery and status, no signal.
  const disconnected = () =>
    robotFixture({ robot_id: ECHO, name: 'Echo', status: 'disinfecting', mode: 0, battery: 64, signal: null, last_seen: '2026-11-24T08:00:00.000Z' });

  it('shows them offline with a dash for what they never reported, not 0 % or full bars', async () => {
    await openRobots(signedIn(['done-teleoperator'], [...robots(), unheard(), disconnected()]));
    const delta = rowOf('Delta');
    expect(within(delta).getByTestId('robot-offline')).toHaveTextContent('Offline');
    expect(within(delta).getByTestId('robot-status')).toHaveTextContent('—');
    expect(within(delta).queryByText('Idle')).toBeNull();
    expect(within(delta).getByTestId('battery')).toHaveTextContent('—');
    expect(within(delta).getByTestId('battery')).not.toHaveTextContent('%');
    expect(within(delta).queryByRole('progressbar')).toBeNull();
    expect(within(delta).getByText('Battery not reported')).toHaveClass('visually-hidden');
    expect(within(delta).getByTestId('signal')).toHaveTextContent('—');
    expect(within(delta).getByTestId('signal')).not.toHaveTextContent('Full');
    expect(within(delta).getByText('Signal not reported')).toHaveClass('visually-hidden');

    // What a disconnected robot last reported stays, marked offline; there is no signal to show.
    const echo = rowOf('Echo');
    expect(within(echo).getByTestId('robot-offline')).toHaveTextContent('Offline');
    expect(within(echo).getByText('Disinfecting')).toBeInTheDocument();
    expect(within(echo).getByTestId('battery')).toHaveTextContent('64 %');
    expect(within(echo).getByTestId('signal')).toHaveTextContent('—');

    // Robots that report keep their readings and show no offline mark.
    expect(within(rowOf('Alpha')).getByTestId('battery')).toHaveTextContent('55 %');
    expect(within(rowOf('Alpha')).queryByTestId('robot-offline')).toBeNull();
  });

  it('disables their pause, resume, home and stop controls with the reason as description, until they report Autonomous', async () => {
    const user = userEvent.setup();
    await openRobots(signedIn(['done-admin'], [...robots(), unheard()]));
    await waitFor(() => {
      expect(streams).toHaveLength(1);
    });
    await user.click(within(rowOf('Delta')).getByRole('button', { name: 'Delta' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delta' });
    expect(within(dialog).getByTestId('robot-mode')).toHaveTextContent('Offline');
    expect(within(dialog).getByTestId('robot-status')).toHaveTextContent('—');
    expect(within(dialog).getByTestId('battery')).toHaveTextContent('—');
    expect(within(dialog).getByTestId('signal')).toHaveTextContent('—');
    const reason = 'This robot is offline (not reporting): controls are available once it is back online in Autonomous mode.';
    const controls = within(within(dialog).getByRole('group', { name: 'Robot controls' })).getAllByRole('button');
    expect(controls.map((button) => button.textContent)).toEqual(['Start / resume', 'Pause', 'Stop', 'Home']);
    for (const button of controls) {
      expect(button).toBeDisabled();
      expect(button).toHaveAccessibleDescription(reason);
    }

    // Once it speaks (the stream reports its mode and ping), the controls are there.
    streams[0]?.stream.event('robot_update', { robot_id: DELTA, field: 'ping', value: 40, timeout: false });
    streams[0]?.stream.event('robot_update', { robot_id: DELTA, field: 'mode', value: 2 });
    await waitFor(() => {
      expect(within(dialog).getByRole('button', { name: 'Pause' })).toBeEnabled();
    });
    expect(within(dialog).queryByText(reason)).toBeNull();
    expect(within(dialog).getByTestId('signal')).toHaveTextContent('Full');
  });
});
