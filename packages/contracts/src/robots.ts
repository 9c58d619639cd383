// Contracts of the robots backend (spec §3, §7).
export {};
