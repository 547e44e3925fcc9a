CREATE TABLE "cgp"."knowledge_chunks" (
	"key" text PRIMARY KEY NOT NULL,
	"source_type" text NOT NULL,
	"source_id" text NOT NULL,
	"source_version" integer,
	"title" text NOT NULL,
	"content" text NOT NULL,
	"content_hash" text NOT NULL,
	"embedder_model" text NOT NULL,
	"embedding" real[] NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', title || ' ' || content)) STORED NOT NULL,
	"embedded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cgp"."knowledge_index_refreshes" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"embedder_model" text NOT NULL,
	"refreshed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "knowledge_chunks_source" ON "cgp"."knowledge_chunks" USING btree ("source_type","source_id");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_search" ON "cgp"."knowledge_chunks" USING gin ("search");