// Contracts of the actions backend (spec §3, §7).
export {};
