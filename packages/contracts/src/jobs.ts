// Contracts of the jobs backend (spec §3, §7).
export {};
