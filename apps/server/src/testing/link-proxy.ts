/**
 * A robot's network link as a test can break it: an in-process TCP proxy on 127.0.0.1 (ephemeral port) between
 * a robot (SimRobot, or any MQTT client) and the broker. Point the robot at `proxy.url` instead of the broker.
 *
 * - pass: bytes flow both ways (TCP_NODELAY on both sockets, so the proxy adds no Nagle delay to a measurement).
 * - `cut()`: every open connection is closed cleanly on both sides (FIN, as a robot whose Wi-Fi drops and whose
 *   TCP stack says so): the broker sees a connection end without MQTT DISCONNECT and publishes the robot's last
 *   will at once. The link then stays down until `heal()`: connections the robot opens meanwhile are closed at
 *   once, so it keeps retrying as on a network that refuses it.
 * - `stall()`: a half-open link, as a dead network path: both TCP connections stay open (no FIN, no RST) but no
 *   byte goes through either way; bytes sent meanwhile are dropped. Neither side learns of it until its own MQTT
 *   keepalive fires; a side that then closes its socket is not told to the other (its FIN is lost too). A
 *   connection the robot opens while stalled is accepted and stalled as well (its CONNECT is lost, so the robot's
 *   connect timeout decides).
 * - `heal()`: the link works again for connections opened from now on; a connection stalled before stays dead
 *   until one of its ends gives it up, as a TCP connection whose packets were lost does.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export type LinkMode = 'pass' | 'cut' | 'stalled';

export interface LinkProxy {
  /** `mqtt://127.0.0.1:{port}`: where the robot connects. */
  readonly url: string;
  readonly port: number;
  readonly mode: LinkMode;
  /** Connections from the robot still open on the robot's side (stalled ones included). */
  readonly openConnections: number;
  /** Connections from the robot accepted since the start. */
  readonly acceptedConnections: number;
  cut(): void;
  stall(): void;
  heal(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

interface Pipe {
  robot: Socket;
  broker: Socket | null;
  /** Once stalled a pipe never forwards again (its packets were lost; TCP cannot resume them). */
  stalled: boolean;
}

export async function startLinkProxy(target: { host: string; port: number } | string): Promise<LinkProxy> {
  const { host, port: targetPort } = typeof target === 'string' ? brokerAddress(target) : target;
  let mode: LinkMode = 'pass';
  let accepted = 0;
  const pipes = new Set<Pipe>();

  const closeCleanly = (socket: Socket | null) => {
    if (!socket || socket.destroyed) return;
    socket.end();
    // A peer that never answers our FIN must not keep the socket forever.
    setTimeout(() => socket.destroy(), 1000).unref();
  };

  const server: Server = createServer((robot) => {
    accepted += 1;
    robot.setNoDelay(true);
    // A reset or an error on one side is that side's business; the proxy must never crash the test process.
    robot.on('error', () => undefined);
    if (mode === 'cut') {
      robot.destroy();
      return;
    }
    const pipe: Pipe = { robot, broker: null, stalled: mode === 'stalled' };
    pipes.add(pipe);
    // A pipe is forgotten once both of its sockets are closed: a stalled one may keep its broker side for a while.
    const forgetWhenClosed = () => {
      if (robot.destroyed && (pipe.broker?.destroyed ?? true)) pipes.delete(pipe);
    };
    robot.on('close', () => {
      if (!pipe.stalled) closeCleanly(pipe.broker);
      forgetWhenClosed();
    });
    robot.on('data', (chunk: Buffer) => {
      if (!pipe.stalled) pipe.broker?.write(chunk);
    });
    if (pipe.stalled) return;
    // Nothing is read from the robot until the broker's side is connected, so its CONNECT is not lost.
    robot.pause();
    const broker = createConnection({ host, port: targetPort });
    pipe.broker = broker;
    broker.setNoDelay(true);
    broker.on('error', () => undefined);
    broker.on('connect', () => robot.resume());
    broker.on('data', (chunk: Buffer) => {
      if (!pipe.stalled) robot.write(chunk);
    });
    broker.on('close', () => {
      if (!pipe.stalled) closeCleanly(robot);
      forgetWhenClosed();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    get mode() {
      return mode;
    },
    get openConnections() {
      return [...pipes].filter((pipe) => !pipe.robot.destroyed).length;
    },
    get acceptedConnections() {
      return accepted;
    },
    cut() {
      mode = 'cut';
      for (const pipe of pipes) {
        if (pipe.stalled) continue;
        closeCleanly(pipe.robot);
        closeCleanly(pipe.broker);
      }
    },
    stall() {
      mode = 'stalled';
      for (const pipe of pipes) pipe.stalled = true;
    },
    heal() {
      mode = 'pass';
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pipe of pipes) {
          pipe.robot.destroy();
          pipe.broker?.destroy();
        }
        pipes.clear();
        server.close(() => { resolve(); });
      }),
  };
}

function brokerAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 1883) };
}
