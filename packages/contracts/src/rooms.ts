// Contracts of the rooms backend (spec §3, §7).
export {};
