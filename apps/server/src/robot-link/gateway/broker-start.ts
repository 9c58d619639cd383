/** Where robots connect: the external broker of MQTT_URL, or else the embedded one, started here. */
import { eq } from 'drizzle-orm';
import { RobotMode } from '@uvd/contracts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { robots } from '../../db/schema.ts';
import { startEmbeddedBroker, type EmbeddedBroker } from '../broker.ts';

export async function startBroker(config: Pick<Config, 'mqttUrl' | 'mqttHost' | 'mqttPort'>, db: Db): Promise<{ broker: EmbeddedBroker | undefined; brokerUrl: string }> {
  let broker: EmbeddedBroker | undefined;
  if (!config.mqttUrl) {
    // No robot is connected to a broker that is only starting: rows the previous run left ONLINE are not true
    // any more, and a robot is online again once it speaks (its last battery, status and pose stay shown).
    await db
      .update(robots)
      .set({ connectionState: 'OFFLINE', mode: RobotMode.offline, status: 'offline', signal: -1 })
      .where(eq(robots.connectionState, 'ONLINE'));
    broker = await startEmbeddedBroker({ db, host: config.mqttHost, port: config.mqttPort });
  }
  return { broker, brokerUrl: config.mqttUrl ?? broker?.url ?? '' };
}
