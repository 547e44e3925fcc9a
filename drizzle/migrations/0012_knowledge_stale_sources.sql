CREATE TABLE "cgp"."knowledge_stale_sources" (
	"source_type" text NOT NULL,
	"source_id" text NOT NULL,
	"marked_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "knowledge_stale_sources_source_type_source_id_pk" PRIMARY KEY("source_type","source_id")
);
