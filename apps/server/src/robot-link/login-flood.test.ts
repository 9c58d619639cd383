/**
 * The MQTT login flood (fault test): whoever reaches the embedded broker's port can send wrong logins as fast
 * as it likes. Each must not cost an argon2 hash on the thread pool the API needs: refused logins are
 * bounded, a real robot still logs in meanwhile, and the API keeps answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RobotList } from '@uvd/contracts';
import { expectStatus } from '../testing/assertions.ts';
import { DEFAULT_LOGIN_LIMITS } from './login-guard.ts';
import { createRobotRow, mqttLogin, type LoginOutcome, type TestRobotRow } from '../testing/fleet-fixtures.ts';
import { startTestServer, type TestServer } from '../testing/harness.ts';

let server: TestServer;
const opened: LoginOutcome[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const outcome of opened) if (outcome.connected) await outcome.client.endAsync(true);
  await server.close();
});

const usernameOf = (row: TestRobotRow) => `${row.manufacturer}/${row.serialNumber}`;

/** The attacker's address; robots log in from others (all of 127.0.0.0/8 is loopback). */
const ATTACKER = '127.0.0.1';

describe('MQTT login flood', () => {
  it('refuses 50 parallel wrong logins with few password verifications, while a robot logs in and the API answers', async () => {
    const orgId = await server.createOrg();
    const admin = await server.createUser(orgId, ['done-admin']);
    const db = server.context.db;
    const [victim, other, robot] = await Promise.all([createRobotRow(db, orgId), createRobotRow(db, orgId), createRobotRow(db, orgId)]);
    const brokerUrl = server.context.fleet.brokerUrl;
    const fleet = server.context.fleet;
    const verificationsBefore = fleet.passwordVerifications();
    const refusedBefore = fleet.refusedLogins();

    // 40 guesses at one robot's password, 10 spread over another robot and names that are no robot at all.
    const usernames = [
      ...Array.from({ length: 40 }, () => usernameOf(victim)),
      ...Array.from({ length: 5 }, () => usernameOf(other)),
      'uvd-test/no-such-robot',
      'admin',
      'root',
      `${victim.manufacturer}/`,
      'uvd-gateway',
    ];
    const flood = Promise.all(
      usernames.map((username, n) => mqttLogin(brokerUrl, { username, password: `guess-${n}`, localAddress: ATTACKER })),
    );
    // While the flood runs: a robot with the right password, from its own address, and the API.
    const [outcomes, robotLogin, listed] = await Promise.all([
      flood,
      mqttLogin(brokerUrl, { username: usernameOf(robot), password: robot.password, localAddress: '127.0.0.2' }),
      server.request('GET', '/api/robot/robot/robots', { token: admin.token }),
    ]);
    opened.push(robotLogin, ...outcomes);

    expect(outcomes.filter((outcome) => outcome.connected)).toHaveLength(0);
    expect(fleet.refusedLogins() - refusedBefore).toBe(usernames.length);
    // 45 guesses name robots, yet the address is locked out after a few failures, and the guesses still in
    // line then are refused unchecked: at most those failures and the checks running when the lockout began,
    // plus the robot's own login.
    const { failuresBeforeLockout, maxVerifications } = DEFAULT_LOGIN_LIMITS;
    const verifications = fleet.passwordVerifications() - verificationsBefore;
    expect(verifications).toBeLessThanOrEqual(failuresBeforeLockout + maxVerifications + 1);
    expect(robotLogin.connected).toBe(true);
    expectStatus(listed, 200);
    expect(RobotList.parse(listed.body).count).toBe(3);
  });

  it('locks out an address and a robot name after repeated failures, without hashing, and lets a robot in again', async () => {
    const orgId = await server.createOrg();
    const db = server.context.db;
    const [victim, robot] = await Promise.all([createRobotRow(db, orgId), createRobotRow(db, orgId)]);
    const brokerUrl = server.context.fleet.brokerUrl;
    const fleet = server.context.fleet;
    const attacker = '127.0.0.3';

    // One guess after another from one address: after a few failures its logins are refused unhashed.
    const verificationsBefore = fleet.passwordVerifications();
    const codes: (number | undefined)[] = [];
    for (let n = 0; n < 20; n++) {
      const outcome = await mqttLogin(brokerUrl, { username: usernameOf(victim), password: `guess-${n}`, localAddress: attacker });
      opened.push(outcome);
      codes.push(outcome.connected ? 0 : outcome.code);
    }
    expect(codes.every((code) => code !== 0)).toBe(true);
    // The failures up to the lockout, and on a slow machine one more when the first (2 s) lockout ends.
    const { failuresBeforeLockout } = DEFAULT_LOGIN_LIMITS;
    expect(fleet.passwordVerifications() - verificationsBefore).toBeLessThanOrEqual(failuresBeforeLockout + 2);
    // Locked out: "not authorized" (5), not "bad user name or password" (4).
    expect(codes.slice(0, failuresBeforeLockout)).toEqual(Array.from({ length: failuresBeforeLockout }, () => 4));
    expect(codes.filter((code) => code === 5).length).toBeGreaterThanOrEqual(10);

    // The victim's name is locked too: guesses from other addresses are not hashed either...
    const spreadBefore = fleet.passwordVerifications();
    for (let n = 0; n < 5; n++) {
      const outcome = await mqttLogin(brokerUrl, { username: usernameOf(victim), password: `spread-${n}`, localAddress: `127.0.1.${n + 1}` });
      opened.push(outcome);
      expect(outcome.connected).toBe(false);
    }
    expect(fleet.passwordVerifications() - spreadBefore).toBeLessThanOrEqual(1);

    // ...while another robot logs in from its own address.
    const robotLogin = await mqttLogin(brokerUrl, { username: usernameOf(robot), password: robot.password, localAddress: '127.0.0.4' });
    opened.push(robotLogin);
    expect(robotLogin.connected).toBe(true);
  });

  it('lets a whole fleet behind one address log in at once, a few password checks at a time', async () => {
    const orgId = await server.createOrg();
    const rows = await Promise.all(Array.from({ length: 30 }, () => createRobotRow(server.context.db, orgId)));
    const fleet = server.context.fleet;
    const refusedBefore = fleet.refusedLogins();
    const outcomes = await Promise.all(
      rows.map((row) => mqttLogin(fleet.brokerUrl, { username: usernameOf(row), password: row.password, localAddress: '127.0.0.5' })),
    );
    opened.push(...outcomes);
    expect(outcomes.filter((outcome) => !outcome.connected)).toEqual([]);
    expect(fleet.refusedLogins() - refusedBefore).toBe(0);
  });
});
