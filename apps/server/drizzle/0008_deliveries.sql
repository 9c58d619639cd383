CREATE TABLE "deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" text NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"priority" text DEFAULT 'routine' NOT NULL,
	"pickup_room_id" uuid NOT NULL,
	"dropoff_room_id" uuid NOT NULL,
	"robot_id" uuid,
	"requested_by_id" uuid,
	"requested_by_name" text NOT NULL,
	"recipient_user_id" uuid,
	"recipient_name" text,
	"deliver_by" timestamp with time zone,
	"notes" text DEFAULT '' NOT NULL,
	"pin_hash" text NOT NULL,
	"pin_failures" integer DEFAULT 0 NOT NULL,
	"handoff_locked_at" timestamp with time zone,
	"handoff_verified_at" timestamp with time zone,
	"loaded_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"waiting_for" text,
	"waiting_since" timestamp with time zone,
	"reason" text,
	"dispatch_attempts" integer DEFAULT 0 NOT NULL,
	"dispatched_at" timestamp with time zone,
	"trouble_since" timestamp with time zone,
	"drawer" text,
	"last_place" jsonb,
	"escalation_level" integer DEFAULT 0 NOT NULL,
	"escalated_at" timestamp with time zone,
	"order_update_id" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_custody" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"delivery_id" uuid NOT NULL,
	"step" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"user_id" uuid,
	"user_name" text,
	"robot_id" uuid,
	"robot_name" text,
	"place" jsonb,
	"detail" text
);
--> statement-breakpoint
CREATE TABLE "delivery_items" (
	"delivery_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"description" text NOT NULL,
	"category" text NOT NULL,
	"quantity" integer NOT NULL,
	CONSTRAINT "delivery_items_delivery_id_position_pk" PRIMARY KEY("delivery_id","position")
);
--> statement-breakpoint
ALTER TABLE "push_events" ALTER COLUMN "robot_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "push_events" ADD COLUMN "delivery_id" uuid;--> statement-breakpoint
ALTER TABLE "push_events" ADD COLUMN "audience" text;--> statement-breakpoint
ALTER TABLE "robot_commands" ADD COLUMN "delivery_id" uuid;--> statement-breakpoint
ALTER TABLE "robots" ADD COLUMN "kind" text DEFAULT 'disinfection' NOT NULL;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_pickup_room_id_rooms_id_fk" FOREIGN KEY ("pickup_room_id") REFERENCES "public"."rooms"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_dropoff_room_id_rooms_id_fk" FOREIGN KEY ("dropoff_room_id") REFERENCES "public"."rooms"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_robot_id_robots_id_fk" FOREIGN KEY ("robot_id") REFERENCES "public"."robots"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_requested_by_id_users_id_fk" FOREIGN KEY ("requested_by_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deliveries" ADD CONSTRAINT "deliveries_recipient_user_id_users_id_fk" FOREIGN KEY ("recipient_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_custody" ADD CONSTRAINT "delivery_custody_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_custody" ADD CONSTRAINT "delivery_custody_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_items" ADD CONSTRAINT "delivery_items_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_org_created" ON "deliveries" USING btree ("org_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "deliveries_queue" ON "deliveries" USING btree ("org_id","created_at") WHERE status = 0;--> statement-breakpoint
CREATE INDEX "deliveries_robot" ON "deliveries" USING btree ("robot_id") WHERE robot_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "delivery_custody_delivery" ON "delivery_custody" USING btree ("delivery_id","id");--> statement-breakpoint
ALTER TABLE "push_events" ADD CONSTRAINT "push_events_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "robot_commands" ADD CONSTRAINT "robot_commands_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- The chain of custody is append-only, and closed once the delivery is Delivered (status 4).
CREATE FUNCTION delivery_custody_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    RAISE EXCEPTION 'delivery_custody is append-only' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  IF EXISTS (SELECT 1 FROM deliveries WHERE id = NEW.delivery_id AND status = 4) THEN
    RAISE EXCEPTION 'the custody record of a delivered delivery is closed' USING ERRCODE = 'integrity_constraint_violation';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER delivery_custody_append_only BEFORE INSERT OR UPDATE ON delivery_custody
  FOR EACH ROW EXECUTE FUNCTION delivery_custody_append_only();
