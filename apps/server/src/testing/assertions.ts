import { expect } from 'vitest';
import { ApiError } from '@uvd/contracts';
import type { TestResponse } from './harness.ts';

/** A 400 validation error whose message names `field`. */
export function expectFieldError(response: TestResponse, field: string) {
  expect(response.status).toBe(400);
  const error = ApiError.parse(response.body);
  expect(error.error).toBe('validation_error');
  expect(error.message).toContain(`"${field}`);
}

/** The status, with the body in the failure message; an error status must carry the contract's error body. */
export function expectStatus(response: TestResponse, status: number) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  if (status >= 400) ApiError.parse(response.body);
}

/** Reads until `accept` holds (a robot row, a reply), polling every 25 ms: for changes that arrive asynchronously. */
export async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
