CREATE TABLE "job_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"job_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"actor" text,
	"order_no" integer,
	"room_id" uuid,
	"dose" real,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "job_rooms" ADD COLUMN "dose_received" real;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "robot_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "not_started_reason" text;--> statement-breakpoint
ALTER TABLE "logs" ADD COLUMN "planned_starttime" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "logs" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "logs" ADD COLUMN "events" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "start_window_minutes" integer DEFAULT 15 NOT NULL;--> statement-breakpoint
ALTER TABLE "robot_commands" ADD COLUMN "stop_alerted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "job_events_job" ON "job_events" USING btree ("job_id","id");--> statement-breakpoint
CREATE INDEX "robot_commands_open_job" ON "robot_commands" USING btree ("job_id") WHERE state IN ('pending', 'sent');