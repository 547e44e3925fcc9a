CREATE TABLE "cgp"."cue_disagreements" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"report_id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"entity_version" integer NOT NULL,
	"entity_kind" text NOT NULL,
	"resource_id" text NOT NULL,
	"environment" text NOT NULL,
	"native" jsonb NOT NULL,
	"wasm" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cgp"."governance_entities" ADD COLUMN "evaluator" text;--> statement-breakpoint
ALTER TABLE "cgp"."governance_entities" ADD COLUMN "evaluator_reason" text;--> statement-breakpoint
CREATE UNIQUE INDEX "cue_disagreements_per_report" ON "cgp"."cue_disagreements" USING btree ("report_id","environment","entity_id","entity_version","resource_id");--> statement-breakpoint
CREATE INDEX "cue_disagreements_entity" ON "cgp"."cue_disagreements" USING btree ("entity_id","id" DESC NULLS LAST);