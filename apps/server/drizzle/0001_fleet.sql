CREATE TABLE "actions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"job_id" uuid NOT NULL,
	"robot_id" uuid NOT NULL,
	"room_id" uuid,
	"prompt_id" text NOT NULL,
	"button_text" text NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"confirm" boolean,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "command_replies" (
	"org_id" text NOT NULL,
	"key" text NOT NULL,
	"reply" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "command_replies_org_id_key_pk" PRIMARY KEY("org_id","key")
);
--> statement-breakpoint
CREATE TABLE "trajectory_points" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_id" uuid NOT NULL,
	"floor_id" uuid,
	"t" real NOT NULL,
	"x" real NOT NULL,
	"y" real NOT NULL
);
--> statement-breakpoint
ALTER TABLE "job_rooms" ADD COLUMN "state" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "job_rooms" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "job_rooms" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "completion_status" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "order_update_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "connection_state" text DEFAULT 'OFFLINE' NOT NULL;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "last_state_header_id" integer;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "mqtt_password_hash" text;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "errors" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "factsheet" jsonb;--> statement-breakpoint
ALTER TABLE "actions" ADD CONSTRAINT "actions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "actions" ADD CONSTRAINT "actions_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "actions" ADD CONSTRAINT "actions_robot_id_robots_id_fk" FOREIGN KEY ("robot_id") REFERENCES "public"."robots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "actions" ADD CONSTRAINT "actions_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "command_replies" ADD CONSTRAINT "command_replies_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trajectory_points" ADD CONSTRAINT "trajectory_points_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "actions_robot_prompt" ON "actions" USING btree ("robot_id","prompt_id");--> statement-breakpoint
CREATE INDEX "actions_job" ON "actions" USING btree ("job_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "trajectory_points_job" ON "trajectory_points" USING btree ("job_id","id");