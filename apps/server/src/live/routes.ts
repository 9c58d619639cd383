/** The live streams of behaviour §7 and the upkeep of their event log. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';
import { schedulePruning } from './pruning.ts';
import { liveSettings } from './settings.ts';
import { registerLiveStreams } from './streams.ts';

export const liveRoutes: FastifyPluginAsync<AppContext> = async (app, context) => {
  registerLiveStreams(app, context);

  const pruner = schedulePruning(context.bus, liveSettings(context.config), (error) => {
    app.log.error({ err: error }, 'pruning live events failed');
  });
  app.addHook('onClose', () => pruner.stop());
};
