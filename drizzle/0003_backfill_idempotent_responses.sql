-- Keys recorded before 0002 were all createPet's, and pets were never changed before then, so
-- the pet's row is exactly the body their first response carried.
UPDATE "idempotency_keys" AS k
SET "operation" = 'createPet',
    "response" = jsonb_build_object(
      'id', p."id", 'name', p."name", 'categoryId', p."category_id", 'status', p."status")
FROM "pets" AS p
WHERE p."id" = k."pet_id" AND k."response" IS NULL;
