-- The audit trail (apps/server/src/audit/README.md), hand-written: drizzle-kit does not generate functions or
-- triggers. Appended to the migration that creates audit_entries.
--
-- Every change of an audited table is recorded by a trigger in the transaction that makes it, so nothing a person
-- changes escapes the record, whichever code path made it. Who and from where come from the transaction-local
-- setting `uvd.audit` (JSON: source, actor, actor_id, ip, request) that the server sets at the start of every
-- transaction opened while handling a state-changing request (db/client.ts); without it the change is the
-- server's own (`system`) unless the server said otherwise (`robot`).
--
-- Trigger arguments: entity name; the columns naming the row (comma-separated); where the organization comes from
-- (`org_id`, `self` for organizations, or `table.column|table.column` looked up in order: a row removed by a
-- cascade finds its organization through whichever parent is still there); secret columns, whose values never
-- enter the record (only whether they changed); columns whose change alone is not worth an entry.
CREATE OR REPLACE FUNCTION uvd_audit_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  entity text := TG_ARGV[0];
  key_columns text[] := string_to_array(TG_ARGV[1], ',');
  org_source text := TG_ARGV[2];
  secret_columns text[] := coalesce(string_to_array(nullif(TG_ARGV[3], ''), ','), '{}');
  ignored_columns text[] := coalesce(string_to_array(nullif(TG_ARGV[4], ''), ','), '{}');
  old_row jsonb;
  new_row jsonb;
  the_row jsonb;
  org text;
  lookup text;
  parent text[];
  parent_id uuid;
  secret text;
  context jsonb;
  setting text;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_row := to_jsonb(OLD); END IF;
  IF TG_OP <> 'DELETE' THEN new_row := to_jsonb(NEW); END IF;
  IF TG_OP = 'UPDATE' AND (old_row - ignored_columns) = (new_row - ignored_columns) THEN RETURN NULL; END IF;
  the_row := coalesce(new_row, old_row);

  IF org_source = 'org_id' THEN
    org := the_row ->> 'org_id';
  ELSIF org_source = 'self' THEN
    org := the_row ->> 'id';
  ELSE
    FOREACH lookup IN ARRAY string_to_array(org_source, '|') LOOP
      parent := string_to_array(lookup, '.');
      parent_id := (the_row ->> parent[2])::uuid;
      -- Static queries, not EXECUTE: PL/pgSQL keeps their plans, where EXECUTE plans again for every row.
      CASE parent[1]
        WHEN 'jobs' THEN SELECT org_id INTO org FROM jobs WHERE id = parent_id;
        WHEN 'rooms' THEN SELECT org_id INTO org FROM rooms WHERE id = parent_id;
        WHEN 'groups' THEN SELECT org_id INTO org FROM groups WHERE id = parent_id;
        WHEN 'users' THEN SELECT org_id INTO org FROM users WHERE id = parent_id;
        WHEN 'robots' THEN SELECT org_id INTO org FROM robots WHERE id = parent_id;
      END CASE;
      EXIT WHEN org IS NOT NULL;
    END LOOP;
  END IF;
  -- Nothing left to say which organization it was (the organization itself is being removed): no entry.
  IF org IS NULL THEN RETURN NULL; END IF;

  FOREACH secret IN ARRAY secret_columns LOOP
    IF new_row IS NOT NULL AND new_row ->> secret IS NOT NULL THEN
      new_row := jsonb_set(new_row, ARRAY[secret],
        CASE WHEN old_row IS NOT NULL AND old_row -> secret IS NOT DISTINCT FROM new_row -> secret THEN '"[redacted]"' ELSE '"[changed]"' END::jsonb);
    END IF;
    IF old_row IS NOT NULL AND old_row ->> secret IS NOT NULL THEN
      old_row := jsonb_set(old_row, ARRAY[secret], '"[redacted]"'::jsonb);
    END IF;
  END LOOP;

  setting := current_setting('uvd.audit', true);
  context := CASE WHEN setting IS NULL OR setting = '' THEN '{"source":"system"}'::jsonb ELSE setting::jsonb END;

  INSERT INTO audit_entries (org_id, at, source, actor, actor_id, ip, request, entity, entity_id, operation, before, after)
  VALUES (
    org,
    clock_timestamp(),
    coalesce(context ->> 'source', 'system'),
    context ->> 'actor',
    (context ->> 'actor_id')::uuid,
    context ->> 'ip',
    context ->> 'request',
    entity,
    (SELECT string_agg(the_row ->> key_column, ':') FROM unnest(key_columns) AS key_column),
    lower(TG_OP),
    old_row,
    new_row
  );
  -- Wakes the chainers at commit (one notification per organization and transaction: PostgreSQL folds duplicates).
  PERFORM pg_notify('uvd_audit', org);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Append-only: no entry is removed or changed, except that the chainer gives an unchained entry its place in the
-- chain once. Someone with the database owner's rights can disable this; the chain then tells (audit/chain.ts).
CREATE OR REPLACE FUNCTION uvd_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF OLD.hash IS NULL AND NEW.hash IS NOT NULL AND NEW.seq IS NOT NULL
       AND (to_jsonb(NEW) - ARRAY['seq', 'prev_hash', 'hash']) = (to_jsonb(OLD) - ARRAY['seq', 'prev_hash', 'hash']) THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_entries_append_only BEFORE UPDATE OR DELETE ON audit_entries FOR EACH ROW EXECUTE FUNCTION uvd_audit_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_entries_no_truncate BEFORE TRUNCATE ON audit_entries FOR EACH STATEMENT EXECUTE FUNCTION uvd_audit_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_organizations AFTER INSERT OR UPDATE OR DELETE ON organizations FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('organization', 'id', 'self', '', '');
--> statement-breakpoint
-- Failed logins count on the user's row: security's concern (identity), not a change anyone made.
CREATE TRIGGER audit_users AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('user', 'id', 'org_id', 'password_hash', 'failed_logins,last_failure_at,locked_until');
--> statement-breakpoint
CREATE TRIGGER audit_groups AFTER INSERT OR UPDATE OR DELETE ON groups FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('group', 'id', 'org_id', '', '');
--> statement-breakpoint
CREATE TRIGGER audit_user_groups AFTER INSERT OR UPDATE OR DELETE ON user_groups FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('user_group', 'user_id,group_id', 'groups.group_id|users.user_id', '', '');
--> statement-breakpoint
CREATE TRIGGER audit_buildings AFTER INSERT OR UPDATE OR DELETE ON buildings FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('building', 'id', 'org_id', '', '');
--> statement-breakpoint
-- A plan is a large SVG: the record says whether it changed, not what it was.
CREATE TRIGGER audit_floors AFTER INSERT OR UPDATE OR DELETE ON floors FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('floor', 'id', 'org_id', 'map_svg', '');
--> statement-breakpoint
CREATE TRIGGER audit_rooms AFTER INSERT OR UPDATE OR DELETE ON rooms FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('room', 'id', 'org_id', '', '');
--> statement-breakpoint
CREATE TRIGGER audit_room_groups AFTER INSERT OR UPDATE OR DELETE ON room_groups FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('room_group', 'room_id,group_id', 'rooms.room_id|groups.group_id', '', '');
--> statement-breakpoint
CREATE TRIGGER audit_robots_added AFTER INSERT OR DELETE ON robots FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('robot', 'id', 'org_id', 'mqtt_password_hash', '');
--> statement-breakpoint
-- A robot's row takes its state about every second (status, mode, battery, pose, errors, …): only what people set
-- is audited, tested in WHEN so that telemetry costs no trigger call at all.
CREATE TRIGGER audit_robots_changed AFTER UPDATE ON robots FOR EACH ROW
  WHEN ((OLD.name, OLD.manufacturer, OLD.serial_number, OLD.kind, OLD.home, OLD.mqtt_password_hash, OLD.lamp, OLD.org_id)
        IS DISTINCT FROM (NEW.name, NEW.manufacturer, NEW.serial_number, NEW.kind, NEW.home, NEW.mqtt_password_hash, NEW.lamp, NEW.org_id))
  EXECUTE FUNCTION uvd_audit_record('robot', 'id', 'org_id', 'mqtt_password_hash', '');
--> statement-breakpoint
CREATE TRIGGER audit_robot_groups AFTER INSERT OR UPDATE OR DELETE ON robot_groups FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('robot_group', 'robot_id,group_id', 'robots.robot_id|groups.group_id', '', '');
--> statement-breakpoint
CREATE TRIGGER audit_jobs AFTER INSERT OR UPDATE OR DELETE ON jobs FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('job', 'id', 'org_id', '', 'updated_at');
--> statement-breakpoint
CREATE TRIGGER audit_job_rooms_planned AFTER INSERT OR DELETE ON job_rooms FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('job_room', 'job_id,order_no', 'jobs.job_id|rooms.room_id', '', '');
--> statement-breakpoint
-- A job's rooms take the robot's progress (state, times, and the dose every couple of seconds): only the plan is audited.
CREATE TRIGGER audit_job_rooms_replanned AFTER UPDATE ON job_rooms FOR EACH ROW
  WHEN ((OLD.job_id, OLD.order_no, OLD.room_id, OLD.dose) IS DISTINCT FROM (NEW.job_id, NEW.order_no, NEW.room_id, NEW.dose))
  EXECUTE FUNCTION uvd_audit_record('job_room', 'job_id,order_no', 'jobs.job_id|rooms.room_id', '', '');
--> statement-breakpoint
CREATE TRIGGER audit_actions AFTER INSERT OR UPDATE OR DELETE ON actions FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('action', 'id', 'org_id', '', '');
--> statement-breakpoint
-- Every command decided for a robot, by whoever decided it; its delivery (attempts, acknowledgement) is not a decision.
CREATE TRIGGER audit_robot_commands AFTER INSERT ON robot_commands FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('robot_command', 'id', 'org_id', '', '');
--> statement-breakpoint
-- A delivery's place moves with its robot: not worth an entry alone.
CREATE TRIGGER audit_deliveries AFTER INSERT OR UPDATE OR DELETE ON deliveries FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('delivery', 'id', 'org_id', 'pin_hash', 'updated_at,last_place');
--> statement-breakpoint
CREATE TRIGGER audit_contacts AFTER INSERT OR UPDATE OR DELETE ON contacts FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('contact', 'id', 'org_id', '', '');
--> statement-breakpoint
-- The device token is a push credential.
CREATE TRIGGER audit_device_subscriptions AFTER INSERT OR UPDATE OR DELETE ON device_subscriptions FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('device_subscription', 'user_id,topic', 'org_id', 'token', '');
--> statement-breakpoint
-- An organization's webhooks: where its events go. The signing secret never enters the record.
CREATE TRIGGER audit_webhooks AFTER INSERT OR UPDATE OR DELETE ON webhooks FOR EACH ROW EXECUTE FUNCTION uvd_audit_record('webhook', 'id', 'org_id', 'secret', '');
