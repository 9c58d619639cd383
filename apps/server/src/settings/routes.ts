import type { FastifyPluginAsync } from 'fastify';
import { Id, LANGUAGES, listLanguages, listTimezones, saveSettings } from '@uvd/contracts';
import type { AppContext } from '../context.ts';
import { notFound } from '../lib/http-error.ts';
import { registerRoute } from '../lib/route.ts';
import { saveUserSettings } from './repository.ts';
import { timezoneList } from './timezones.ts';

const languages = LANGUAGES.map(([name, id]): [string, string] => [name, id]);

/** The settings backend (behaviour §7). */
export const settingsRoutes: FastifyPluginAsync<AppContext> = async (app, ctx) => {
  // The baseline of the jobs-list benchmark: a constant, no database.
  registerRoute(app, listLanguages, async () => languages);

  registerRoute(app, listTimezones, async () => timezoneList());

  registerRoute(app, saveSettings, async ({ body, principal }) => {
    const settings = { language: body.language, timezone: body.timezone };
    // Settings live on the directory row; a token subject without one (external Keycloak user) has nowhere to keep them.
    const saved = Id.safeParse(principal.sub).success && (await saveUserSettings(ctx.db, principal.orgId, principal.sub, settings));
    if (!saved) throw notFound('User');
    return { data: settings };
  });
};
