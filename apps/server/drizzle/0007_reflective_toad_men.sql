ALTER TABLE "job_rooms" ADD COLUMN "dose_received" real;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "robot_started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "not_started_reason" text;--> statement-breakpoint
ALTER TABLE "logs" ADD COLUMN "planned_starttime" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "logs" ADD COLUMN "reason" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "start_window_minutes" integer DEFAULT 15 NOT NULL;