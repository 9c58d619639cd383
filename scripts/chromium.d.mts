export declare const INSTALL_CHROMIUM: string;
export declare function findChromium(options?: { full?: boolean }): string | undefined;
export declare function findOrInstallChromium(): string | undefined;
