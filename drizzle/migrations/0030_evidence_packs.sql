CREATE TABLE "cgp"."evidence_packs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"environments" jsonb,
	"resource_types" jsonb,
	"requested_by" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"completed_at" timestamp with time zone,
	"summary" jsonb,
	"pack" bytea,
	"sha256" text,
	"size" integer
);
--> statement-breakpoint
CREATE TABLE "cgp"."governance_entity_statuses" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entity_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"status" text NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"changed_by" text NOT NULL,
	"entity" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cgp"."governance_exceptions_removed" (
	"id" uuid PRIMARY KEY NOT NULL,
	"removed_at" timestamp with time zone NOT NULL,
	"exception" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "evidence_packs_by_time" ON "cgp"."evidence_packs" USING btree ("requested_at");--> statement-breakpoint
CREATE INDEX "governance_entity_statuses_by_time" ON "cgp"."governance_entity_statuses" USING btree ("since");--> statement-breakpoint
CREATE FUNCTION "cgp"."record_entity_status"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "cgp"."governance_entity_statuses" ("entity_id", "version", "status", "since", "changed_by", "entity")
  VALUES (NEW."id", NEW."version", NEW."status", now(), NEW."updated_by", to_jsonb(NEW));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "entity_status_history" AFTER INSERT ON "cgp"."governance_entities" FOR EACH ROW WHEN (NEW."status" <> 'draft') EXECUTE FUNCTION "cgp"."record_entity_status"();--> statement-breakpoint
CREATE TRIGGER "entity_status_moves" AFTER UPDATE OF "status" ON "cgp"."governance_entities" FOR EACH ROW WHEN (OLD."status" IS DISTINCT FROM NEW."status") EXECUTE FUNCTION "cgp"."record_entity_status"();--> statement-breakpoint
INSERT INTO "cgp"."governance_entity_statuses" ("entity_id", "version", "status", "since", "changed_by", "entity")
SELECT e."id", e."version", e."status", e."updated_at", e."updated_by", to_jsonb(e) FROM "cgp"."governance_entities" e WHERE e."status" <> 'draft';--> statement-breakpoint
CREATE FUNCTION "cgp"."keep_removed_exception"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "cgp"."governance_exceptions_removed" ("id", "removed_at", "exception") VALUES (OLD."id", now(), to_jsonb(OLD)) ON CONFLICT ("id") DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "exception_removals" AFTER DELETE ON "cgp"."governance_exceptions" FOR EACH ROW EXECUTE FUNCTION "cgp"."keep_removed_exception"();
