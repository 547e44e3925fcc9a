CREATE TABLE "cgp"."llm_answers" (
	"entity_id" uuid NOT NULL,
	"entity_version" integer NOT NULL,
	"descriptor_hash" text NOT NULL,
	"model" text NOT NULL,
	"satisfies_policy" boolean NOT NULL,
	"errors" jsonb NOT NULL,
	"suggestions" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "llm_answers_entity_id_entity_version_descriptor_hash_pk" PRIMARY KEY("entity_id","entity_version","descriptor_hash")
);
--> statement-breakpoint
ALTER TABLE "cgp"."governance_entities" ADD COLUMN "llm_rule" text;