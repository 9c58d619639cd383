/**
 * A TCP proxy in front of an MQTT broker whose link can stall, as a half-open link does: while stalled, every
 * MQTT packet is lost in both directions, and neither side's socket is closed (no FIN, no RST, so no last will);
 * once resumed, packets flow again. Whole packets are dropped, never parts of one, so each side's MQTT stream
 * stays well-formed, as after packets TCP gave up on. Point a robot at `url` instead of the broker.
 */
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface StallProxy {
  /** mqtt://127.0.0.1:{port} of the proxy. */
  url: string;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

/** The length of the MQTT packet at the start of `buffer`, or undefined while its fixed header is incomplete. */
function packetLength(buffer: Buffer): number | undefined {
  let remaining = 0;
  for (let index = 1; index <= 4; index++) {
    const byte = buffer[index];
    if (byte === undefined) return undefined;
    remaining += (byte & 0x7f) * 128 ** (index - 1);
    if ((byte & 0x80) === 0) return 1 + index + remaining;
  }
  throw new Error('malformed MQTT remaining length');
}

/** Forwards whole packets from `from` to `to`, dropping them while `stalled()`. */
function pipePackets(from: Socket, to: Socket, stalled: () => boolean): void {
  let pending = Buffer.alloc(0);
  from.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const length = packetLength(pending);
      if (length === undefined || pending.length < length) return;
      const packet = pending.subarray(0, length);
      pending = pending.subarray(length);
      if (!stalled() && !to.destroyed) to.write(packet);
    }
  });
}

export async function startStallProxy(brokerUrl: string): Promise<StallProxy> {
  const target = new URL(brokerUrl);
  let stalled = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => undefined);
    }
    pipePackets(client, upstream, () => stalled);
    pipePackets(upstream, client, () => stalled);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
