import type { MirroredSession, SessionMirror } from '../lib/auth/session-mirror.ts';

/** The service worker's session mirror in memory (jsdom has no IndexedDB). */
export class MemorySessionMirror implements SessionMirror {
  current: MirroredSession | null = null;
  readonly writes: MirroredSession[] = [];

  write(session: MirroredSession): Promise<void> {
    this.current = session;
    this.writes.push(session);
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.current = null;
    return Promise.resolve();
  }

  read(): Promise<MirroredSession | null> {
    return Promise.resolve(this.current);
  }
}
