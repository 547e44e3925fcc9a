CREATE TABLE "cgp"."evidence_pack_parts" (
	"pack_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"part" integer NOT NULL,
	"bytes" bytea NOT NULL,
	CONSTRAINT "evidence_pack_parts_pack_id_attempt_part_pk" PRIMARY KEY("pack_id","attempt","part")
);
--> statement-breakpoint
ALTER TABLE "cgp"."evidence_packs" DROP COLUMN "pack";