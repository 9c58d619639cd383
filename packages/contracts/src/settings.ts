// Contracts of the settings backend (spec §3, §7).
export {};
