import { Robot } from '@uvd/contracts';

/** A robot as GET /robot/robot/robots sends it, parsed with the contract. */
export const robotFixture = (overrides: Partial<Robot> & Pick<Robot, 'robot_id' | 'name'>): Robot =>
  Robot.parse({
    status: 'idle',
    mode: 2,
    battery: 80,
    charging_status: 0,
    signal: 20,
    floor_id: null,
    building_id: null,
    pose: null,
    last_seen: null,
    stale: false,
    ...overrides,
  });

/** A controllable text/event-stream response: push frames, then end or break it. */
export class FakeEventStream {
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly encoder = new TextEncoder();
  readonly response: Response;
  cancelled = false;

  constructor() {
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.cancelled = true;
      },
    });
    this.response = new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }

  push(text: string): void {
    this.controller?.enqueue(this.encoder.encode(text));
  }

  /** One robot_update event frame. */
  update(payload: unknown): void {
    this.push(`event: robot_update\ndata: ${JSON.stringify(payload)}\n\n`);
  }

  end(): void {
    this.controller?.close();
  }
}
