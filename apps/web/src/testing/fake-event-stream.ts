/** A controllable text/event-stream response for the live streams (lib/live): push frames, then end or break it. */
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

  /** One event frame with a JSON payload. */
  event(name: string, payload: unknown): void {
    this.push(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`);
  }

  end(): void {
    this.controller?.close();
  }
}
