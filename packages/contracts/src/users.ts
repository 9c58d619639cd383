// Contracts of the users backend (spec §3, §7).
export {};
