ALTER TABLE "job_rooms" ADD COLUMN "dose_received" real;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "robot_started_at" timestamp with time zone;