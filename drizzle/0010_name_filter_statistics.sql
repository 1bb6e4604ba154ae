-- The planner has no statistics on lower(name) without these, so it guesses that a few percent
-- of pets match any name filter and walks the primary key, reading every pet when the name is
-- rare. With them it sees how rare a name is and uses the trigram index. ANALYZE (and
-- autovacuum's) keeps them current.
CREATE STATISTICS pets_lower_name_stats ON (lower(name)) FROM pets;
