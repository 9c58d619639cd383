/**
 * The OpenAPI document (GET /api/docs/json) and Swagger UI (/api/docs), generated from the same contracts the
 * routes are registered from (lib/route.ts). plugins/openapi.test.ts checks the document against the server.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

export const DOCS_PREFIX = '/api/docs';

type Transform = typeof jsonSchemaTransform;

/**
 * A 204 has no content (RFC 9110 §15.3.5), but OpenAPI 3.0 has no null type, so the zod converter writes a
 * contract's `z.null()` as a nullable string that @fastify/swagger would declare as a JSON body. The JSON schema
 * `{ type: 'null' }` is what @fastify/swagger reads as "no content".
 */
const withoutNoContentBody: Transform = (input) => {
  const output = jsonSchemaTransform(input);
  const response: unknown = output.schema.response;
  if (typeof response === 'object' && response !== null && '204' in response) {
    const noContent: unknown = response['204'];
    const description = typeof noContent === 'object' && noContent !== null && 'description' in noContent ? noContent.description : undefined;
    return { ...output, schema: { ...output.schema, response: { ...response, 204: { type: 'null', description } } } };
  }
  return output;
};

export const openapiPlugin = fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        info: { title: 'UV-C disinfection fleet console API', version: '1.0.0' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      },
      transform: withoutNoContentBody,
      // The OpenAPI document covers the API; the identity provider follows OIDC's own documents.
      hideUntagged: false,
    });
    await app.register(swaggerUi, { routePrefix: DOCS_PREFIX });
  },
  { name: 'openapi' },
);
