/** Things a test left running (an app's token refresh timer); setup.ts disposes them after each test. */
const open = new Set<{ dispose(): void }>();

export const trackDisposable = (item: { dispose(): void }): void => {
  open.add(item);
};

export const disposeAll = (): void => {
  for (const item of open) item.dispose();
  open.clear();
};
