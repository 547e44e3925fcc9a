CREATE TABLE "cgp"."governance_generation" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "cgp"."governance_generation" ("id", "value") VALUES (1, 0);--> statement-breakpoint
CREATE FUNCTION "cgp"."next_governance_generation"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "cgp"."governance_generation" SET "value" = "value" + 1 WHERE "id" = 1;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "governance_generation" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "cgp"."resource_types" FOR EACH STATEMENT EXECUTE FUNCTION "cgp"."next_governance_generation"();--> statement-breakpoint
CREATE TRIGGER "governance_generation" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "cgp"."environments" FOR EACH STATEMENT EXECUTE FUNCTION "cgp"."next_governance_generation"();--> statement-breakpoint
CREATE TRIGGER "governance_generation" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "cgp"."governance_entities" FOR EACH STATEMENT EXECUTE FUNCTION "cgp"."next_governance_generation"();
