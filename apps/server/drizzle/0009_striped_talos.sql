CREATE TABLE "lamp_intervals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"order_no" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "logs" ADD COLUMN "dose" jsonb;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "lamp" jsonb;--> statement-breakpoint
ALTER TABLE "lamp_intervals" ADD CONSTRAINT "lamp_intervals_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lamp_intervals_job" ON "lamp_intervals" USING btree ("job_id","id");