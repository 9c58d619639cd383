/**
 * The signed-in state the service worker needs to answer a prompt from a notification's button without opening
 * the console: the access token (never the refresh token), when it expires, its organization and where the
 * actions backend is. The page writes it on every sign-in and token refresh and deletes it when the session ends;
 * the service worker, which sees no session storage, reads it from IndexedDB.
 *
 * It outlives the tab (IndexedDB is per origin, not per tab) for at most the access token's lifetime: a closed
 * console no longer refreshes, so 15 minutes after its last refresh the worker opens the console instead. With
 * several tabs the last one to sign in or refresh wins; a logout in any tab deletes it until the others refresh.
 */
import { z } from 'zod';

export const MirroredSession = z.object({
  accessToken: z.string().min(1),
  /** Epoch milliseconds. */
  expiresAt: z.number(),
  realm: z.string().min(1),
  /** RuntimeConfig.backends.action: the base address of POST /action/action/confirm. */
  actionBackend: z.string().min(1),
});
export type MirroredSession = z.infer<typeof MirroredSession>;

export interface SessionMirror {
  write(session: MirroredSession): Promise<void>;
  clear(): Promise<void>;
  read(): Promise<MirroredSession | null>;
}

const DATABASE = 'uvd-console';
const STORE = 'session';
const KEY = 'current';

const settle = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => {
      resolve(request.result);
    };
    request.onerror = () => {
      reject(request.error ?? new Error('IndexedDB request failed'));
    };
  });

const openDatabase = (factory: IDBFactory): Promise<IDBDatabase> => {
  const request = factory.open(DATABASE, 1);
  request.onupgradeneeded = () => {
    request.result.createObjectStore(STORE);
  };
  return settle(request);
};

/** One transaction on the store; the database is opened per call, as the worker may be stopped at any time. */
const withStore = async <T>(factory: IDBFactory, mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> => {
  const database = await openDatabase(factory);
  try {
    const transaction = database.transaction(STORE, mode);
    const result = await settle(run(transaction.objectStore(STORE)));
    await new Promise<void>((resolve, reject) => {
      transaction.oncomplete = () => {
        resolve();
      };
      transaction.onerror = () => {
        reject(transaction.error ?? new Error('IndexedDB transaction failed'));
      };
      transaction.onabort = () => {
        reject(transaction.error ?? new Error('IndexedDB transaction aborted'));
      };
    });
    return result;
  } finally {
    database.close();
  }
};

/** The mirror in this origin's IndexedDB (the page writes, the service worker reads). */
export const createIndexedDbSessionMirror = (factory: IDBFactory = indexedDB): SessionMirror => {
  // One operation after the other, so a sign-out's delete never lands before the write of the refresh before it.
  let queue: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(operation: () => Promise<T>): Promise<T> => {
    const result = queue.then(operation);
    queue = result.catch(() => undefined);
    return result;
  };
  return {
    write: (session) => enqueue(async () => {
      await withStore(factory, 'readwrite', (store) => store.put(session, KEY));
    }),
    clear: () => enqueue(async () => {
      await withStore(factory, 'readwrite', (store) => store.delete(KEY));
    }),
    read: () => enqueue(async () => {
      const value: unknown = await withStore(factory, 'readonly', (store) => store.get(KEY));
      const parsed = MirroredSession.safeParse(value);
      return parsed.success ? parsed.data : null;
    }),
  };
};
