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
