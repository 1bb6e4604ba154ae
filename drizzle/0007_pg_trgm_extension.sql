-- Trigram indexes serve the name filter of listPets (case-insensitive contains). pg_trgm is a
-- trusted extension on PostgreSQL 13 and later, and the embedded database loads it at open.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
