export declare const INSTALL_CHROMIUM: string;
export declare function findChromium(): string | undefined;
export declare function findOrInstallChromium(): string | undefined;
