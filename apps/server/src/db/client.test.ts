import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './client.ts';

describe('embedded database (PGlite) under a queue of queries', () => {
  let database: Database;
  let server: Server;
  let robot: Socket;
  let gateway: Socket;

  beforeAll(async () => {
    database = await openDatabase({});
    // A loopback TCP pair stands for a robot's MQTT connection to the server.
    server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection');
    robot = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(robot, 'connect');
    [gateway] = (await accepted) as [Socket];
  });

  afterAll(async () => {
    robot.destroy();
    gateway.destroy();
    server.close();
    await database.close();
  });

  it('reads a socket between two queries instead of after the whole queue', async () => {
    const queued = 1000;
    let finished = 0;
    const received = once(gateway, 'data').then(() => finished);
    const queries = Array.from({ length: queued }, () =>
      database.db.execute(sql`SELECT 1`).then(() => {
        finished += 1;
      }),
    );
    // The robot's message reaches the server while the queue waits, as a state arriving while twenty jobs write.
    robot.write('state');
    const finishedWhenRead = await received;
    await Promise.all(queries);
    // Before, the queue ran as one chain of promises and the message was read only after all of it.
    expect(finishedWhenRead).toBeLessThan(queued / 2);
  });
});
