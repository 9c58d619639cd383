// Contracts of the identity backend (spec §3, §7).
export {};
