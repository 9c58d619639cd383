/**
 * A robot's MQTT login, made by an admin: a random password whose argon2id hash replaces the robot's stored one,
 * returned once. The embedded broker checks logins against that hash; the gateway accepts states only from
 * robots in the table, so this is how a registered robot (or the simulator playing it) joins the fleet.
 */
import { randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { RobotMqttCredentials } from '@uvd/contracts';
import type { Executor } from '../db/client.ts';
import { robots } from '../db/schema.ts';
import type { Principal } from '../identity/principal.ts';
import { hashPassword } from '../identity/passwords.ts';
import { notFound } from '../lib/http-error.ts';

/** 24 random bytes: 192 bits, 32 characters of base64url. */
const PASSWORD_BYTES = 24;

/** The broker's address as robots may be told it: without the user name and password the server logs in with. */
export function publicBrokerUrl(brokerUrl: string): string | null {
  if (!brokerUrl) return null;
  try {
    const url = new URL(brokerUrl);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
}

export async function makeMqttCredentials(
  db: Executor,
  principal: Principal,
  robotId: string,
  brokerUrl: string,
): Promise<RobotMqttCredentials> {
  // Hashed before the row is touched: argon2 takes tens of milliseconds, which no transaction should wait for.
  const password = randomBytes(PASSWORD_BYTES).toString('base64url');
  const passwordHash = await hashPassword(password);
  const [row] = await db
    .update(robots)
    .set({ mqttPasswordHash: passwordHash })
    .where(and(eq(robots.id, robotId), eq(robots.orgId, principal.orgId)))
    .returning({ id: robots.id, manufacturer: robots.manufacturer, serialNumber: robots.serialNumber, floorId: robots.floorId, home: robots.home });
  if (!row) throw notFound('Robot');
  return {
    robot_id: row.id,
    manufacturer: row.manufacturer,
    serial_number: row.serialNumber,
    username: `${row.manufacturer}/${row.serialNumber}`,
    password,
    broker_url: publicBrokerUrl(brokerUrl),
    floor_id: row.floorId,
    home: row.home ?? null,
  };
}
