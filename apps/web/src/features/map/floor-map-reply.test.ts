import { getFloorMap } from '@uvd/contracts';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../lib/api-client.ts';
import { testConfig } from '../../testing/fixtures.ts';

describe('floor plan reply', () => {
  it('arrives as the SVG text the server sends as image/svg+xml, with the bearer token', async () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"><script>alert(1)</script></svg>';
    const seen: Headers[] = [];
    const fetchSvg: typeof fetch = (input, init) => {
      seen.push(new Request(input, init).headers);
      return Promise.resolve(new Response(svg, { status: 200, headers: { 'content-type': 'image/svg+xml' } }));
    };
    const api = createApiClient(testConfig(), { fetch: fetchSvg, getAccessToken: () => 'token-1' });
    await expect(api.request(getFloorMap, { query: { floor_id: 'b0000000-0000-4000-8000-000000000001', image_format: 'svg' } })).resolves.toBe(svg);
    expect(seen[0]?.get('Authorization')).toBe('Bearer token-1');
  });
});
