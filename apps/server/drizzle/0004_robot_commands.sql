CREATE TABLE "robot_commands" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"robot_id" uuid NOT NULL,
	"job_id" uuid,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"body" jsonb NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"given_up_at" timestamp with time zone,
	"given_up_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "robot_commands" ADD CONSTRAINT "robot_commands_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "robot_commands" ADD CONSTRAINT "robot_commands_robot_id_robots_id_fk" FOREIGN KEY ("robot_id") REFERENCES "public"."robots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "robot_commands" ADD CONSTRAINT "robot_commands_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "robot_commands_robot_seq" ON "robot_commands" USING btree ("robot_id","seq");--> statement-breakpoint
CREATE INDEX "robot_commands_open" ON "robot_commands" USING btree ("next_attempt_at") WHERE state IN ('pending', 'sent');