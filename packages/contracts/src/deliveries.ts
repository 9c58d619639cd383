// Contracts of the deliveries backend (spec §3, §7).
export {};
