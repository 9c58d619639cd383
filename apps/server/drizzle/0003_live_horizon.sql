CREATE TABLE "event_horizon" (
	"id" integer PRIMARY KEY NOT NULL,
	"pruned_through" bigint NOT NULL,
	"pruned_at" timestamp with time zone DEFAULT now() NOT NULL
);
