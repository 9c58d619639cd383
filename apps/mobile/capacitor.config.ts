import type { CapacitorConfig } from '@capacitor/cli';

/**
 * The mobile shell wraps the web console's production build (apps/web/dist) unchanged. The app serves it from
 * its own assets (https://localhost on Android, capacitor://localhost on iOS) and reads the server's addresses
 * from the `config.json` that scripts/write-runtime-config.ts puts beside it at `cap copy`/`cap sync` (README.md).
 */
const config: CapacitorConfig = {
  appId: 'fi.uvd.console',
  appName: 'UVD Console',
  webDir: '../web/dist',
  plugins: {
    PushNotifications: {
      // A push that arrives while the app is open is shown by the system too, not only as the console's toast:
      // on iOS that banner is where a prompt's Confirm and Skip buttons are.
      presentationOptions: ['badge', 'sound', 'alert'],
    },
  },
};

export default config;
