// Contracts of the groups backend (spec §3, §7).
export {};
